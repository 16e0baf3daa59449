import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import { onUnauthenticated, setCsrfToken } from './api/client';
import { session as sessionApi } from './api/endpoints';
import type { SessionInfo } from './api/types';
import { ApiError } from './lib/api-error';

export interface SessionState {
  readonly info: SessionInfo;
  /** Why editing is off, when it is. */
  readonly readOnlyReason: string | undefined;
  readonly refresh: () => Promise<unknown>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export const READ_ONLY_REASON =
  'This instance runs with server.mode set to read-only: it serves evaluations, and its configuration cannot be changed here.';

const ENDED = 'vexil.sessionEnded';

/** Remembers, for the sign-in page, that the service ended a signed-in session. */
function markSessionEnded(): void {
  try {
    sessionStorage.setItem(ENDED, '1');
  } catch {
    // Storage disabled: the sign-in page then shows its usual text.
  }
}

/** Whether the last session ended under the person's feet (until the next sign-in). */
export function sessionEnded(): boolean {
  try {
    return sessionStorage.getItem(ENDED) === '1';
  } catch {
    return false;
  }
}

export function forgetSessionEnded(): void {
  try {
    sessionStorage.removeItem(ENDED);
  } catch {
    // Nothing was stored.
  }
}

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

export const useReadOnly = () => useSession().readOnlyReason;

/** Loads the session once; every 401 later sends the person to sign in again. */
export function SessionProvider({
  children,
  fallback,
}: {
  children: ReactNode;
  fallback: ReactNode;
}) {
  const client = useQueryClient();
  const location = useLocation();
  const query = useQuery({
    queryKey: ['session'],
    queryFn: sessionApi.get,
    staleTime: Infinity,
    retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
  });

  useEffect(() => {
    setCsrfToken(query.data?.csrfToken);
  }, [query.data?.csrfToken]);

  useEffect(
    () =>
      onUnauthenticated(async () => {
        const here = location.pathname + location.search;
        if (location.pathname === '/login') return;
        // A scoped token is refused outside its namespace with the same 401: only a session
        // that really ended goes back to sign-in.
        const still = await sessionApi.get().catch(() => undefined);
        if (still?.authenticated === true) return;
        markSessionEnded();
        // A fresh load of the sign-in page: nothing of the ended session stays in memory.
        window.location.replace(`/login?next=${encodeURIComponent(here)}`);
      }),
    [location.pathname, location.search],
  );

  const state = useMemo<SessionState | undefined>(
    () =>
      query.data && {
        info: query.data,
        readOnlyReason: query.data.readOnly ? READ_ONLY_REASON : undefined,
        refresh: () => client.invalidateQueries(),
      },
    [query.data, client],
  );

  if (query.isError) {
    return (
      <div className="login">
        <div className="card banner danger" role="alert">
          The dashboard could not reach the service: {query.error.message}
        </div>
      </div>
    );
  }
  if (!state) return <>{fallback}</>;
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}
