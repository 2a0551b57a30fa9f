'use client';
/**
 * Dialogs on the native <dialog> element: modal, focus kept inside, Escape closes. An action
 * dialog runs its action on confirm, shows the API's error inside the dialog when it fails and
 * closes when it succeeds.
 */
import { type SubmitEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import { ActionError } from './ui';

export function Dialog({ open, onClose, title, children }: { open: boolean; onClose: () => void; title: string; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} onClose={onClose} aria-label={title}>
      {open ? children : null}
    </dialog>
  );
}

export function ActionDialog({
  open,
  onClose,
  title,
  children,
  confirmLabel,
  danger,
  onConfirm,
  disabled,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<unknown>;
  disabled?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (open) setError(null);
  }, [open]);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} onClose={onClose} title={title}>
      <form onSubmit={(e) => void submit(e)}>
        <h2>{title}</h2>
        {children}
        <ActionError error={error} />
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className={danger ? 'danger solid' : 'primary'} disabled={busy || disabled} autoFocus={!danger}>
            {busy ? 'Working…' : confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
