import type React from "react";
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

/** A list's filter: a select whose first option is "Any" (the empty value). */
export function ListFilter(props: {
  id: string;
  label: ReactNode;
  value: string;
  options: readonly SelectOption[];
  onChange: (value: string) => void;
  className?: string;
}) {
  return <SelectField {...props} any="Any" className={props.className ?? "mb-4 max-w-xs"} />;
}

/** What a labelled text control takes besides its element's own attributes. */
interface TextControl {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  hint?: ReactNode;
  className?: string;
  inputClassName?: string;
}

/** A text control's props split into its Field's and its element's. */
function splitControl<P extends TextControl>({ id, label, value, onChange, hint, className, inputClassName, ...rest }: P) {
  return {
    field: { id, label, hint, className },
    control: { ...rest, id, value, className: `input ${inputClassName ?? ""}`.trim() },
    onChange,
  };
}

/** A labelled text input (its type text by default), with an optional hint; other input attributes pass through. */
export function TextField(props: TextControl & Omit<React.InputHTMLAttributes<HTMLInputElement>, keyof TextControl>) {
  const { field, control, onChange } = splitControl(props);
  return (
    <Field {...field}>
      <input {...control} onChange={(e) => onChange(e.target.value)} />
    </Field>
  );
}

/** A labelled textarea, with an optional hint; other textarea attributes pass through. */
export function TextAreaField(props: TextControl & Omit<React.TextareaHTMLAttributes<HTMLTextAreaElement>, keyof TextControl>) {
  const { field, control, onChange } = splitControl(props);
  return (
    <Field {...field}>
      <textarea {...control} onChange={(e) => onChange(e.target.value)} />
    </Field>
  );
}

/** A set of radio buttons under a legend: one value of a few. */
export function RadioGroup<V extends string>({
  legend,
  name,
  value,
  options,
  onChange,
}: {
  legend: ReactNode;
  name: string;
  value: V;
  options: readonly { value: V; label: ReactNode }[];
  onChange: (value: V) => void;
}) {
  return (
    <fieldset>
      <legend className="field-label">{legend}</legend>
      <div className="flex flex-wrap gap-4 text-sm">
        {options.map((o) => (
          <label key={o.value} className="inline-flex items-center gap-2">
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={value === o.value}
              onChange={() => onChange(o.value)}
              className="accent-brand-600"
            />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
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
