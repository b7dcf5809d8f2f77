"use client";

import type { ReactNode } from "react";

export interface ChatSettingsProps {
  /** Prefix of the field ids (labels point at them). */
  idPrefix: string;
  models: string[];
  model: string;
  onModel: (model: string) => void;
  temperature: number;
  onTemperature: (temperature: number) => void;
  systemPrompt: string;
  onSystemPrompt: (prompt: string) => void;
  /** Extra settings below the common ones (e.g. the answer cache). */
  children?: ReactNode;
}

/** The chat settings aside shared by the streaming chat and the single / batch chat: model, temperature, system prompt. */
export function ChatSettings(p: ChatSettingsProps) {
  return (
    <aside className="card h-fit space-y-4" aria-label="Chat settings">
      <h2 className="text-base">Settings</h2>
      <div>
        <label htmlFor={`${p.idPrefix}-model`} className="field-label">
          Model
        </label>
        <select id={`${p.idPrefix}-model`} className="input" value={p.model} onChange={(e) => p.onModel(e.target.value)}>
          {p.models.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor={`${p.idPrefix}-temperature`} className="field-label">
          Temperature: {p.temperature.toFixed(1)}
        </label>
        <input
          id={`${p.idPrefix}-temperature`}
          type="range"
          min={0}
          max={2}
          step={0.1}
          value={p.temperature}
          onChange={(e) => p.onTemperature(Number(e.target.value))}
          className="w-full accent-brand-600"
        />
      </div>
      <div>
        <label htmlFor={`${p.idPrefix}-system`} className="field-label">
          System prompt (optional)
        </label>
        <textarea
          id={`${p.idPrefix}-system`}
          className="input min-h-20"
          value={p.systemPrompt}
          onChange={(e) => p.onSystemPrompt(e.target.value)}
          placeholder="You are a helpful assistant."
        />
      </div>
      {p.children}
    </aside>
  );
}
