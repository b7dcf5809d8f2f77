import type { ReactNode } from "react";

/** A labelled form control with an optional hint below it. */
export function Field({
  id,
  label,
  hint,
  className,
  children,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {children}
      {hint ? <p className="mt-1 text-xs text-slate-500">{hint}</p> : null}
    </div>
  );
}

export type SelectOption = string | { value: string; label: string };

/** A labelled select; `any` adds a first option with the empty value ("Any" for a filter). */
export function SelectField({
  id,
  label,
  value,
  options,
  onChange,
  any,
  className,
}: {
  id: string;
  label: ReactNode;
  value: string;
  options: readonly SelectOption[];
  onChange: (value: string) => void;
  any?: string;
  className?: string;
}) {
  return (
    <Field id={id} label={label} className={className}>
      <select id={id} className="input" value={value} onChange={(e) => onChange(e.target.value)}>
        {any !== undefined ? <option value="">{any}</option> : null}
        {options.map((o) => {
          const { value: v, label: l } = typeof o === "string" ? { value: o, label: o } : o;
          return (
            <option key={v} value={v}>
              {l}
            </option>
          );
        })}
      </select>
    </Field>
  );
}

/** A form's submit button that says what it is doing while the request runs. */
export function SubmitButton({
  pending,
  pendingLabel,
  disabled,
  className,
  children,
}: {
  pending: boolean;
  pendingLabel: string;
  disabled?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return (
    <button type="submit" className={className ?? "btn-primary"} disabled={pending || disabled}>
      {pending ? pendingLabel : children}
    </button>
  );
}

/** A streaming form's button: Stop while the answer streams (aborting it), else the submit button. */
export function StopOrSubmit({
  streaming,
  onStop,
  disabled,
  className,
  children,
}: {
  streaming: boolean;
  onStop: () => void;
  disabled?: boolean;
  className?: string;
  children: ReactNode;
}) {
  return streaming ? (
    <button type="button" className={`btn-secondary ${className ?? ""}`} onClick={onStop}>
      Stop
    </button>
  ) : (
    <button type="submit" className={`btn-primary ${className ?? ""}`} disabled={disabled}>
      {children}
    </button>
  );
}
