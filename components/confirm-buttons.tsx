"use client";

/** The second step of a destructive action: confirm it (showing progress while it runs) or keep things as they are. */
export function ConfirmButtons({
  confirmLabel,
  busyLabel,
  busy,
  disabled,
  onConfirm,
  onKeep,
  className = "btn-danger",
}: {
  confirmLabel: string;
  busyLabel: string;
  busy: boolean;
  disabled: boolean;
  onConfirm: () => void;
  onKeep: () => void;
  className?: string;
}) {
  return (
    <>
      <button type="button" className={className} disabled={disabled} onClick={onConfirm}>
        {busy ? busyLabel : confirmLabel}
      </button>
      <button type="button" className="btn-secondary" onClick={onKeep}>
        Keep
      </button>
    </>
  );
}
