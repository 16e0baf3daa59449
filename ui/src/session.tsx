import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router';
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
  const navigate = useNavigate();
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
      onUnauthenticated(() => {
        const here = location.pathname + location.search;
        if (location.pathname === '/login') return;
        client.setQueryData<SessionInfo>(['session'], (s) =>
          s ? { ...s, authenticated: false } : s,
        );
        void navigate(`/login?expired=1&next=${encodeURIComponent(here)}`, { replace: true });
      }),
    [client, navigate, location.pathname, location.search],
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
