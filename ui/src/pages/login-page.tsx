import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { session as sessionApi } from '../api/endpoints';
import { Field } from '../components/ui';
import { messageOf } from '../lib/api-error';
import { forgetSessionEnded, sessionEnded, useSession } from '../session';

export function LoginPage() {
  const { info } = useSession();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const next = safeNext(params.get('next'));
  const expired = sessionEnded() || params.has('expired');

  if (!info.authenticationRequired || (info.authenticated && !expired)) {
    return <Navigate to={next} replace />;
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (token.trim() === '') {
      setError('Paste a client token.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const signedIn = await sessionApi.signIn(token.trim());
      client.clear();
      forgetSessionEnded();
      client.setQueryData(['session'], signedIn);
      void navigate(next, { replace: true });
    } catch (err) {
      setError(
        messageOf(err) === 'request was not authenticated'
          ? 'This token is not valid: it may be mistyped, deleted or expired.'
          : messageOf(err),
      );
      setBusy(false);
    }
  };

  return (
    <main className="login">
      <form className="card form" onSubmit={submit} noValidate>
        <div className="inline">
          <img src="/favicon.svg" alt="" width={28} height={28} />
          <h1>Sign in to Vexil</h1>
        </div>
        {expired ? (
          <p className="banner warning" role="status">
            Your session has expired or the token was revoked. Sign in again to continue.
          </p>
        ) : params.has('signedOut') ? (
          <p className="banner info" role="status">
            You are signed out.
          </p>
        ) : (
          <p className="muted">
            This instance requires authentication. Sign in with a client token.
          </p>
        )}
        <Field
          label="Client token"
          error={error}
          hint="The token stays in an HttpOnly cookie for this browser session; the page never stores it."
        >
          {(a) => (
            <input
              {...a}
              className="input mono"
              type="password"
              autoComplete="current-password"
              autoFocus
              value={token}
              onChange={(e) => setToken(e.target.value)}
            />
          )}
        </Field>
        <button className="btn primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

/** Only same-site paths: a crafted link must not send the person elsewhere after sign-in. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') && next !== '/login' ? next : '/';
}
