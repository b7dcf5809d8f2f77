"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** Secondary navigation (tabs as links) for a section of the dashboard. */
export function SectionTabs({ label, items }: { label: string; items: { href: string; label: string }[] }) {
  const pathname = usePathname() ?? "";
  return (
    <nav aria-label={label} className="mb-6 border-b border-slate-200">
      <ul className="-mb-px flex flex-wrap gap-4">
        {items.map((item) => {
          const active = pathname === item.href;
          return (
            <li key={item.href}>
              <Link
                href={item.href}
                aria-current={active ? "page" : undefined}
                className={`inline-block border-b-2 px-1 pb-2 text-sm font-medium ${
                  active
                    ? "border-brand-600 text-brand-700"
                    : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900"
                }`}
              >
                {item.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
