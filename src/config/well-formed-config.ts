import type { z } from 'zod';
import { apiClientSchema, configSchema, counterpartySchema, type ApiClientConfig, type CounterpartyConfig, type GatewayConfig } from './config.schema.ts';

/**
 * The configuration as far as it is well-formed, for the checks that span settings.
 *
 * Those checks need typed values, but waiting for the whole file to pass the schema
 * hid their findings behind any typing mistake, one run at a time. So every setting is
 * parsed here on its own, with its own schema (defaults applied): each holds its value,
 * or MALFORMED when it did not pass (the schema's own finding names it). Lists of
 * counterparties, API clients and staff users are taken entry by entry and setting by
 * setting, so that a counterparty whose id is valid takes part in the check for ids used
 * twice even when its mail settings, or another counterparty, are wrong.
 */
export const MALFORMED: unique symbol = Symbol('malformed setting');
export type Malformed = typeof MALFORMED;

/** Each setting of an object: its value as parsed, or MALFORMED. */
export type Settings<T> = { readonly [K in keyof T]: T[K] | Malformed };

/** One entry of a list, with its index in the file (for the path). */
export interface Entry<T> {
  readonly index: number;
  readonly settings: Settings<T>;
}

export type StaffUserConfig = GatewayConfig['staff']['users'][number];

export interface WellFormedConfig {
  readonly top: Settings<GatewayConfig>;
  readonly mail: Settings<GatewayConfig['mail']>;
  readonly ssek: Settings<GatewayConfig['ssek']>;
  readonly api: Settings<GatewayConfig['api']>;
  readonly notifications: Settings<GatewayConfig['notifications']>;
  /** MALFORMED when the setting is not a list at all. */
  readonly counterparties: readonly Entry<CounterpartyConfig>[] | Malformed;
  readonly apiClients: readonly Entry<ApiClientConfig>[] | Malformed;
  readonly staffUsers: readonly Entry<StaffUserConfig>[] | Malformed;
}

const sections = {
  mail: configSchema.shape.mail.unwrap().shape,
  ssek: configSchema.shape.ssek.unwrap().shape,
  api: configSchema.shape.api.unwrap().shape,
  notifications: configSchema.shape.notifications.unwrap().shape,
  staff: configSchema.shape.staff.unwrap().shape,
};
const staffUserShape = sections.staff.users.unwrap().element.shape;

export function wellFormedConfig(raw: unknown): WellFormedConfig {
  const input = mapping(raw) ?? {};
  const api = mapping(input.api);
  const staff = mapping(input.staff);
  return {
    top: settingsOf<GatewayConfig>(configSchema.shape, raw),
    mail: settingsOf(sections.mail, input.mail),
    ssek: settingsOf(sections.ssek, input.ssek),
    api: settingsOf(sections.api, input.api),
    notifications: settingsOf(sections.notifications, input.notifications),
    counterparties: entriesOf(input.counterparties, (entry) => settingsOf<CounterpartyConfig>(counterpartySchema.shape, entry)),
    apiClients: api === undefined && input.api !== undefined ? MALFORMED : entriesOf(api?.clients, apiClientSettings),
    staffUsers: staff === undefined && input.staff !== undefined ? MALFORMED : entriesOf(staff?.users, (entry) => settingsOf<StaffUserConfig>(staffUserShape, entry)),
  };
}

/** An API client's settings by the schema of its kind; without a known kind, those both kinds have. */
function apiClientSettings(raw: unknown): Settings<ApiClientConfig> {
  const kind = mapping(raw)?.kind;
  const branch = apiClientSchema.options.find((option) => option.shape.kind.value === kind);
  if (branch) return settingsOf<ApiClientConfig>(branch.shape, raw);
  return { ...settingsOf<ApiClientConfig>(apiClientSchema.options[0].shape, raw), kind: MALFORMED, organisationNumber: MALFORMED } as Settings<ApiClientConfig>;
}

/** An absent object is parsed as empty (its defaults); anything but a mapping leaves every setting MALFORMED. */
function settingsOf<T>(shape: Readonly<Record<string, z.ZodType>>, raw: unknown): Settings<T> {
  const input = raw === undefined ? {} : mapping(raw);
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => {
    if (input === undefined) return [key, MALFORMED];
    const result = schema.safeParse(input[key]);
    return [key, result.success ? result.data : MALFORMED];
  })) as Settings<T>;
}

function entriesOf<T>(raw: unknown, settings: (entry: unknown) => Settings<T>): readonly Entry<T>[] | Malformed {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return MALFORMED;
  return raw.map((entry: unknown, index) => ({ index, settings: settings(entry) }));
}

function mapping(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : undefined;
}
