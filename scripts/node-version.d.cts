export function minimumNode(): [number, number, number];
export function unsupportedNodeMessage(version: string, minimum?: [number, number, number]): string | null;
export function refuseUnsupportedNode(): void;
