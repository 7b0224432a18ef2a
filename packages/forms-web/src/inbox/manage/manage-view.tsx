// The entry of the management chunk: the route decides which view (docs/forms-web.md, "Managing
// forms").
import type { Api } from '../api.js';
import type { Route } from '../route.js';
import { FormSettings } from './form-settings.js';
import { NewForm } from './new-form.js';
import { Tokens } from './tokens.js';

export type ManageRoute = Extract<Route, { name: 'new-form' | 'settings' | 'tokens' }>;

export function ManageView(props: { api: Api; route: ManageRoute; onUnauthorized: () => void }) {
  const { api, route, onUnauthorized } = props;
  if (route.name === 'new-form') return <NewForm api={api} />;
  if (route.name === 'tokens') return <Tokens api={api} onUnauthorized={onUnauthorized} />;
  return (
    <FormSettings
      key={route.form}
      api={api}
      form={route.form}
      tab={route.tab}
      onUnauthorized={onUnauthorized}
    />
  );
}
