'use client';
import { createContext, type ReactNode, useCallback, useContext, useState } from 'react';

interface Toast {
  id: number;
  text: string;
  tone: 'ok' | 'bad';
}
const ToastContext = createContext<(text: string, tone?: Toast['tone']) => void>(() => undefined);

/** Short confirmations of what an action did (errors stay next to the action that failed). */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const show = useCallback((text: string, tone: Toast['tone'] = 'ok') => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t, { id, text, tone }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 5000);
  }, []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast ${t.tone}`}>
            {t.text}
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast() {
  return useContext(ToastContext);
}
