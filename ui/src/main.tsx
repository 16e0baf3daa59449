import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Navigate, Outlet, RouterProvider, useLocation } from 'react-router';
import { ApiError } from './lib/api-error';
import { AppShell } from './components/app-shell';
import { ToastProvider } from './components/toast';
import { lastNamespace } from './namespace';
import { SessionProvider, useSession } from './session';
import { LoginPage } from './pages/login-page';
import { FlagsPage } from './pages/flags-page';
import { FlagPage } from './pages/flag-page';
import { SegmentsPage } from './pages/segments-page';
import { SegmentPage } from './pages/segment-page';
import { NamespacesPage } from './pages/namespaces-page';
import { TokensPage } from './pages/tokens-page';
import { ConsolePage } from './pages/console-page';
import { NotFoundPage } from './pages/not-found-page';
import './styles/app.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A 4xx will not go away by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
});

function Root() {
  return (
    <SessionProvider fallback={<div className="login" aria-busy="true" />}>
      <Outlet />
    </SessionProvider>
  );
}

/** Pages that need a signed-in session when the service requires authentication. */
function RequireSession() {
  const { info } = useSession();
  const location = useLocation();
  if (info.authenticationRequired && !info.authenticated) {
    const next = encodeURIComponent(location.pathname + location.search);
    return <Navigate to={`/login?next=${next}`} replace />;
  }
  return <AppShell />;
}

function Home() {
  const { info } = useSession();
  const ns = info.namespaceKey ?? lastNamespace() ?? 'default';
  return <Navigate to={`/namespaces/${encodeURIComponent(ns)}/flags`} replace />;
}

const router = createBrowserRouter([
  {
    element: <Root />,
    children: [
      { path: '/login', element: <LoginPage /> },
      {
        element: <RequireSession />,
        children: [
          { path: '/', element: <Home /> },
          { path: '/namespaces', element: <NamespacesPage /> },
          { path: '/namespaces/:ns', element: <Navigate to="flags" replace /> },
          { path: '/namespaces/:ns/flags', element: <FlagsPage /> },
          { path: '/namespaces/:ns/flags/:flagKey', element: <FlagPage /> },
          { path: '/namespaces/:ns/segments', element: <SegmentsPage /> },
          { path: '/namespaces/:ns/segments/:segmentKey', element: <SegmentPage /> },
          { path: '/namespaces/:ns/console', element: <ConsolePage /> },
          { path: '/tokens', element: <TokensPage /> },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);

const container = document.getElementById('root');
if (container) {
  createRoot(container).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <ToastProvider>
          <RouterProvider router={router} />
        </ToastProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}
