// The organisation's tokens: mint one with a label (its value is shown once), list, revoke.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, TokenInfo } from '../api.js';
import { formatDate } from '../format.js';
import { useLoad } from '../use-load.js';
import { Alert } from '../alert.js';
import { CopyButton } from './copy-button.js';
import { errorText } from './error-text.js';
import { mintToken, revokeToken, tokens } from './form-admin.js';

export function Tokens(props: { api: Api; onUnauthorized: () => void }) {
  const { api } = props;
  const { data, error, reload } = useLoad(() => tokens(api), [api], props.onUnauthorized);
  const [label, setLabel] = useState('');
  const [minted, setMinted] = useState<(TokenInfo & { token: string }) | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  // Focus moves to a new token, so nobody misses the one time it is shown.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (minted) box.current?.focus();
  }, [minted]);

  const mint = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    setStatus(null);
    if (!label.trim()) {
      setProblem('Give the token a label, e.g. who or what will use it.');
      return;
    }
    try {
      setMinted(await mintToken(api, label.trim()));
      setLabel('');
      reload();
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  const revoke = async (t: TokenInfo) => {
    setProblem(null);
    try {
      await revokeToken(api, t.id);
      setConfirming(null);
      setStatus(`Revoked "${t.label}".`);
      reload();
    } catch (err) {
      setProblem(errorText(err));
    }
  };

  return (
    <section aria-labelledby="tokens-title" class="manage">
      <h1 id="tokens-title">Organisation tokens</h1>
      <p>
        A token signs in to this inbox and to the admin API for {api.org}. Give each person or
        program its own, so you can revoke one without the others.
      </p>
      {minted && (
        <div ref={box} class="secret" role="region" aria-labelledby="minted-title" tabIndex={-1}>
          <h2 id="minted-title">Token "{minted.label}"</h2>
          <p>
            <strong>Copy it now: it is not shown again.</strong>
          </p>
          <pre tabIndex={0}>
            <code>{minted.token}</code>
          </pre>
          <CopyButton text={minted.token} label="Copy token" />{' '}
          <button
            type="button"
            onClick={() => {
              setMinted(null);
            }}
          >
            I have saved the token
          </button>
        </div>
      )}
      <form class="row" onSubmit={(e) => void mint(e)} noValidate>
        <span class="field-inline grow">
          <label for="token-label">Label</label>
          <input
            id="token-label"
            value={label}
            maxLength={200}
            placeholder="e.g. Zapier, Maria's laptop"
            onInput={(e) => {
              setLabel(e.currentTarget.value);
            }}
          />
        </span>
        <button type="submit">Mint token</button>
      </form>
      <Alert message={problem} />
      <p role="status">{status}</p>
      <Alert message={error} />
      {data && (
        <ul class="plain-list" aria-label="Tokens">
          {data.map((t) => (
            <li key={t.id}>
              <span class="grow">
                <strong>{t.label}</strong>{' '}
                <span class="muted">created {formatDate(t.createdAt)}</span>
              </span>
              {confirming === t.id ? (
                <span class="confirm">
                  <span>Revoke it? Whoever uses it is signed out (you too, if it is yours).</span>{' '}
                  <button type="button" class="danger" onClick={() => void revoke(t)}>
                    Revoke {t.label}
                  </button>{' '}
                  <button
                    type="button"
                    class="secondary"
                    onClick={() => {
                      setConfirming(null);
                    }}
                  >
                    Keep it
                  </button>
                </span>
              ) : (
                <button
                  type="button"
                  class="secondary"
                  aria-label={`Revoke ${t.label}`}
                  onClick={() => {
                    setConfirming(t.id);
                  }}
                >
                  Revoke
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
