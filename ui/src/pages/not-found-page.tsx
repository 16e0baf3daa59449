import { Link } from 'react-router';
import { EmptyState } from '../components/ui';

export function NotFoundPage() {
  return (
    <EmptyState
      icon="search"
      title="Page not found"
      actions={
        <Link className="btn primary" to="/">
          Go to flags
        </Link>
      }
    >
      There is nothing at this address.
    </EmptyState>
  );
}
