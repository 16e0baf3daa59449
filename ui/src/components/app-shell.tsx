import * as Menu from '@radix-ui/react-dropdown-menu';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { namespaces as namespacesApi, session as sessionApi } from '../api/endpoints';
import { rememberNamespace, useNamespace } from '../namespace';
import { useSession } from '../session';
import { Icon } from './icons';

export function AppShell() {
  const { info, readOnlyReason } = useSession();
  const namespace = useNamespace();
  const location = useLocation();
  const [navOpen, setNavOpen] = useState(false);

  useEffect(() => setNavOpen(false), [location.pathname]);
  useEffect(() => rememberNamespace(namespace), [namespace]);

  const base = `/namespaces/${encodeURIComponent(namespace)}`;
  return (
    <div className={`shell${navOpen ? ' nav-open' : ''}`}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <div className="topbar">
        <button
          type="button"
          className="btn ghost icon"
          aria-label="Open navigation"
          aria-expanded={navOpen}
          aria-controls="sidebar"
          onClick={() => setNavOpen(true)}
        >
          <Icon name="menu" size={20} />
        </button>
        <Brand />
      </div>
      {navOpen ? (
        <div className="scrim" onClick={() => setNavOpen(false)} aria-hidden="true" />
      ) : null}
      <aside className="sidebar" id="sidebar" aria-label="Navigation">
        <Brand />
        <NamespaceSwitcher current={namespace} scoped={info.namespaceKey} />
        <nav className="nav" aria-label="Namespace">
          <NavLink to={`${base}/flags`}>
            <Icon name="flag" /> Flags
          </NavLink>
          <NavLink to={`${base}/segments`}>
            <Icon name="segment" /> Segments
          </NavLink>
          <NavLink to={`${base}/console`}>
            <Icon name="console" /> Evaluation console
          </NavLink>
        </nav>
        <nav className="nav" aria-label="Instance">
          <span className="nav-label">Instance</span>
          {info.namespaceKey === undefined ? (
            <NavLink to="/namespaces" end>
              <Icon name="namespace" /> Namespaces
            </NavLink>
          ) : null}
          {info.namespaceKey === undefined ? (
            <NavLink to="/tokens">
              <Icon name="key" /> Client tokens
            </NavLink>
          ) : null}
        </nav>
        <div className="sidebar-foot">
          {readOnlyReason ? (
            <span className="badge" title={readOnlyReason}>
              <Icon name="lock" size={12} /> Read-only
            </span>
          ) : null}
          {info.authenticated ? <SignOut /> : null}
          <span>Vexil {info.version}</span>
        </div>
      </aside>
      <main className="main" id="main" tabIndex={-1}>
        {readOnlyReason ? (
          <div className="banner warning" role="note">
            <Icon name="lock" style={{ marginTop: 3, flex: 'none' }} />
            <span>{readOnlyReason}</span>
          </div>
        ) : null}
        {info.namespaceKey !== undefined &&
        location.pathname.startsWith('/namespaces/') &&
        namespace !== info.namespaceKey ? (
          <div className="banner danger" role="alert">
            <Icon name="lock" style={{ marginTop: 3, flex: 'none' }} />
            <span>
              Your token is limited to the namespace <strong>{info.namespaceKey}</strong>.{' '}
              <Link to={`/namespaces/${encodeURIComponent(info.namespaceKey)}/flags`}>
                Go to its flags
              </Link>
            </span>
          </div>
        ) : (
          <Outlet />
        )}
      </main>
    </div>
  );
}

function Brand() {
  return (
    <a className="brand" href="/">
      <img src="/favicon.svg" alt="" width={24} height={24} />
      Vexil
    </a>
  );
}

function SignOut() {
  const navigate = useNavigate();
  const client = useQueryClient();
  return (
    <button
      type="button"
      className="btn small"
      onClick={async () => {
        await sessionApi.signOut().catch(() => undefined);
        client.clear();
        void navigate('/login?signedOut=1', { replace: true });
      }}
    >
      <Icon name="logout" /> Sign out
    </button>
  );
}

function NamespaceSwitcher({ current, scoped }: { current: string; scoped: string | undefined }) {
  const navigate = useNavigate();
  const location = useLocation();
  const list = useQuery({
    queryKey: ['namespaces'],
    queryFn: namespacesApi.list,
    enabled: scoped === undefined,
  });
  const items =
    scoped !== undefined ? [{ key: scoped, name: scoped }] : (list.data?.namespaces ?? []);
  const currentName = items.find((n) => n.key === current)?.name ?? current;
  const go = (key: string) => {
    // Stay on the same kind of page (flags, segments, console) in the other namespace.
    const section =
      /^\/namespaces\/[^/]+\/(flags|segments|console)/.exec(location.pathname)?.[1] ?? 'flags';
    void navigate(`/namespaces/${encodeURIComponent(key)}/${section}`);
  };
  return (
    <div className="field">
      <span className="nav-label" id="ns-label">
        Namespace
      </span>
      <Menu.Root>
        <Menu.Trigger
          className="btn"
          aria-labelledby="ns-label ns-current"
          style={{ justifyContent: 'space-between' }}
        >
          <span
            id="ns-current"
            className="inline"
            style={{ overflow: 'hidden', textOverflow: 'ellipsis' }}
          >
            <Icon name="namespace" /> {currentName}
          </span>
          <Icon name="down" size={14} />
        </Menu.Trigger>
        <Menu.Portal>
          <Menu.Content
            className="card"
            sideOffset={4}
            align="start"
            style={{ minWidth: 220, padding: 4, zIndex: 45, boxShadow: 'var(--shadow)' }}
          >
            <Menu.RadioGroup value={current} onValueChange={go}>
              {items.map((n) => (
                <Menu.RadioItem key={n.key} value={n.key} className="menu-item">
                  <span>{n.name}</span>
                  <span className="muted mono" style={{ fontSize: '0.8rem' }}>
                    {n.key}
                  </span>
                </Menu.RadioItem>
              ))}
            </Menu.RadioGroup>
            {scoped === undefined ? (
              <>
                <Menu.Separator style={{ height: 1, background: 'var(--border)', margin: 4 }} />
                <Menu.Item className="menu-item" onSelect={() => void navigate('/namespaces')}>
                  Manage namespaces…
                </Menu.Item>
              </>
            ) : null}
          </Menu.Content>
        </Menu.Portal>
      </Menu.Root>
    </div>
  );
}
