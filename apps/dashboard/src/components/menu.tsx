'use client';
/** A button that opens a short list of actions; Escape or a click elsewhere closes it. */
import { type ReactNode, useEffect, useRef, useState } from 'react';

export function Menu({ label, children }: { label: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    const escape = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('mousedown', away);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('mousedown', away);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);
  return (
    <div className="menu" ref={ref}>
      <button type="button" className="small" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        {label} ▾
      </button>
      {open ? (
        <div className="menu-list" role="menu" onClick={() => setOpen(false)}>
          {children}
        </div>
      ) : null}
    </div>
  );
}
