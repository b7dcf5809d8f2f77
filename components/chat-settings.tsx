"use client";

import { useState, type ReactNode } from "react";
import { Field, SelectField } from "./form-field";

/** The settings a chat sends with each request, and their setters. */
export interface ChatSettingsState {
  model: string;
  setModel: (model: string) => void;
  temperature: number;
  setTemperature: (temperature: number) => void;
  systemPrompt: string;
  setSystemPrompt: (prompt: string) => void;
}

export function useChatSettings(defaultModel: string): ChatSettingsState {
  const [model, setModel] = useState(defaultModel);
  const [temperature, setTemperature] = useState(0.7);
  const [systemPrompt, setSystemPrompt] = useState("");
  return { model, setModel, temperature, setTemperature, systemPrompt, setSystemPrompt };
}

/** The chat settings aside shared by the streaming chat and the single / batch chat: model, temperature, system prompt. */
export function ChatSettings({
  idPrefix,
  models,
  settings: s,
  children,
}: {
  idPrefix: string;
  models: string[];
  settings: ChatSettingsState;
  children?: ReactNode;
}) {
  return (
    <aside className="card h-fit space-y-4" aria-label="Chat settings">
      <h2 className="text-base">Settings</h2>
      <SelectField id={`${idPrefix}-model`} label="Model" value={s.model} onChange={s.setModel} options={models} />
      <Field id={`${idPrefix}-temperature`} label={`Temperature: ${s.temperature.toFixed(1)}`}>
        <input
          id={`${idPrefix}-temperature`}
          type="range"
          min={0}
          max={2}
          step={0.1}
          value={s.temperature}
          onChange={(e) => s.setTemperature(Number(e.target.value))}
          className="w-full accent-brand-600"
        />
      </Field>
      <Field id={`${idPrefix}-system`} label="System prompt (optional)">
        <textarea
          id={`${idPrefix}-system`}
          className="input min-h-20"
          value={s.systemPrompt}
          onChange={(e) => s.setSystemPrompt(e.target.value)}
          placeholder="You are a helpful assistant."
        />
      </Field>
      {children}
    </aside>
  );
}
