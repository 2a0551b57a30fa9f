import { Link } from '@/lib/navigation';

export default function NotFound() {
  return (
    <main className="login">
      <div className="panel">
        <h1>Not found</h1>
        <p className="muted">There is no page at this address.</p>
        <Link href="/">Back to the overview</Link>
      </div>
    </main>
  );
}
