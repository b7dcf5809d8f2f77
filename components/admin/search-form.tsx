"use client";

import { useState, type FormEvent } from "react";

/** The console's search box: the query is applied when submitted (not on every keystroke). */
export function SearchForm({
  id,
  label,
  placeholder,
  onSearch,
}: {
  id: string;
  label: string;
  placeholder: string;
  onSearch: (query: string) => void;
}) {
  const [input, setInput] = useState("");
  function search(event: FormEvent) {
    event.preventDefault();
    onSearch(input.trim());
  }
  return (
    <form role="search" className="mb-4 flex flex-wrap gap-2" onSubmit={search}>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <input id={id} className="input max-w-md" value={input} onChange={(e) => setInput(e.target.value)} placeholder={placeholder} />
      <button type="submit" className="btn-primary">
        Search
      </button>
    </form>
  );
}
