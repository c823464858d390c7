/**
 * A year of a busy gateway's message store, generated inside PostgreSQL for the search
 * benchmark (bench/search.ts): `messages` rows as intake and the stages leave them and
 * the `document_keys` rows the apply transaction writes, without running a document
 * through the pipeline (a million would take hours).
 *
 * The spread, drawn from a fixed seed so runs are alike:
 * - 200 counterparties: the demo's three, 167 employers (one agreement each), 10
 *   administrators (40 agreements each) and 20 custodians; how much each sends is
 *   skewed, so the busiest agreement (the demo's AGR-1001) is named by some 7 % of all
 *   documents and most by a few hundred.
 * - plan documents of eleven types naming 1–7 employees (personnummer with valid check
 *   digits, drawn from 3,000 per agreement out of a pool of 400,000 people), with
 *   insurance numbers where the type carries them; custodian reports naming 1–3 custody
 *   accounts of 20,000 per custodian.
 * - received evenly over the 365 days before now, in sequence order as intake records
 *   them; 94 % applied (a tenth of those partly or wholly rejected by the rules), 2.5 %
 *   rejected by the schema, 1.5 % duplicates, a few dead, the last 20 still received.
 * - keys as the extraction writes them (digits only, one row per message and key) for
 *   the applied documents only.
 */
import type pg from 'pg';

export interface StoreCounterparty {
  readonly id: string;
  readonly name: string;
  readonly organisationNumber: string;
  readonly role: 'employer' | 'administrator' | 'custodian';
  readonly messageTypes: readonly string[];
}

interface Sender extends StoreCounterparty {
  /** The first agreement number (after "AGR-") it sends for; null for a custodian. */
  readonly agreement: number | null;
}

const PEOPLE = 400_000;
const EMPLOYEES_PER_AGREEMENT = 3_000;
const ACCOUNTS_PER_CUSTODIAN = 20_000;
const AGREEMENTS_PER_ADMINISTRATOR = 40;

/** A message's id in the generated store, in SQL: ULID-shaped and time-ordered, from its sequence number. */
export const MESSAGE_ID_OF_SEQ = (seq: string): string => `'01' || upper(lpad(to_hex(${seq}), 24, '0'))`;
const MESSAGE_ID_SQL = MESSAGE_ID_OF_SEQ('g');

/** The check digit of the Swedish identity and organisation numbers (Luhn over nine digits). */
function luhnDigit(nineDigits: string): number {
  let sum = 0;
  for (let i = 0; i < 9; i += 1) {
    const product = Number(nineDigits[i]) * (i % 2 === 0 ? 2 : 1);
    sum += product > 9 ? product - 9 : product;
  }
  return (10 - (sum % 10)) % 10;
}

/** A small seeded generator (mulberry32), so the pool of people is the same every run. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function personnummer(random: () => number): string {
  const year = 1950 + Math.floor(random() * 55);
  const month = 1 + Math.floor(random() * 12);
  const day = 1 + Math.floor(random() * 28);
  const birth = `${String(year % 100).padStart(2, '0')}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
  const nine = `${birth}${String(Math.floor(random() * 1000)).padStart(3, '0')}`;
  return `${Math.floor(year / 100)}${nine}${luhnDigit(nine)}`;
}

const organisationNumber = (n: number): string => {
  const nine = `556${String(100_000 + n * 37).padStart(6, '0')}`;
  return `${nine}${luhnDigit(nine)}`;
};

/** The 200 counterparties of the generated store, as the gateway's configuration lists them. */
export function storeCounterparties(): Sender[] {
  const plan = ['plan-administration'];
  const reporting = ['custodian-reporting'];
  const senders: Sender[] = [
    { id: 'demo-employer', name: 'Demo Employer AB', organisationNumber: '5561234567', role: 'employer', messageTypes: plan, agreement: 1001 },
    { id: 'demo-custodian', name: 'Demo Custodian AB', organisationNumber: '5560000001', role: 'custodian', messageTypes: reporting, agreement: null },
    { id: 'demo-administrator', name: 'Demo Pension Admin AB', organisationNumber: '5590000013', role: 'administrator', messageTypes: plan, agreement: 5000 },
  ];
  for (let n = 3; n < 200; n += 1) {
    const role = n < 170 ? 'employer' : n < 180 ? 'administrator' : 'custodian';
    const label = String(n).padStart(3, '0');
    senders.push({
      id: `${role}-${label}`, name: `Bench ${role} ${label} AB`, organisationNumber: organisationNumber(n), role,
      messageTypes: role === 'custodian' ? reporting : plan,
      agreement: role === 'employer' ? 2000 + n : role === 'administrator' ? 5000 + (n - 169) * AGREEMENTS_PER_ADMINISTRATOR : null,
    });
  }
  return senders;
}

// Several entries of a type weigh it: salary adjustments are the most common plan document.
const PLAN_TYPES = [
  'SalaryAdjustment', 'SalaryAdjustment', 'SalaryAdjustment', 'SalaryAdjustment', 'SalaryAdjustment', 'SalaryAdjustment', 'SalaryAdjustment',
  'PremiumAdjustment', 'PremiumAdjustment', 'PremiumAdjustment', 'ChangeFee', 'ChangeFee', 'Insurancepurchase', 'Insurancepurchase',
  'EmploymentEnded', 'ExtraPremium', 'ChangeCategory', 'BillingStart', 'Transfer', 'Reallocate',
];
const REPORT_TYPES = ['Holdings', 'Holdings', 'Holdings', 'Holdings', 'Holdings', 'Transactions', 'Transactions', 'Transactions', 'Transactions', 'CostAndCharges'];
const TYPES_WITH_INSURANCE = ['PremiumAdjustment', 'ChangeFee', 'Insurancepurchase', 'EmploymentEnded', 'ExtraPremium', 'Reallocate'];
const sqlArray = (values: readonly string[]) => `ARRAY[${values.map((value) => `'${value}'`).join(',')}]`;

/**
 * Writes `count` messages and their document keys into a migrated, empty store and
 * analyses both tables. Gives the seconds each step took.
 */
export async function generateMessageStore(client: pg.Client, count: number, now: Date, log: (text: string) => void): Promise<{ messagesSeconds: number; keysSeconds: number; vacuumSeconds: number }> {
  const senders = storeCounterparties();
  const random = seededRandom(17);
  const people = Array.from({ length: PEOPLE }, () => personnummer(random));
  await client.query(`SET synchronous_commit = off; SET work_mem = '256MB'; SET maintenance_work_mem = '512MB'`);
  await client.query('CREATE TEMP TABLE bench_people (n int PRIMARY KEY, pnr text NOT NULL)');
  await client.query('INSERT INTO bench_people SELECT i - 1, v FROM unnest($1::text[]) WITH ORDINALITY AS u(v, i)', [people]);
  await client.query('CREATE TEMP TABLE bench_senders (n int PRIMARY KEY, id text, orgnr text, role text, agreement int)');
  await client.query(
    'INSERT INTO bench_senders SELECT i - 1, id, orgnr, role, agreement FROM unnest($1::text[], $2::text[], $3::text[], $4::int[]) WITH ORDINALITY AS u(id, orgnr, role, agreement, i)',
    [senders.map((s) => s.id), senders.map((s) => s.organisationNumber), senders.map((s) => s.role), senders.map((s) => s.agreement)],
  );
  // One draw per message, kept, so the messages and their keys agree. A sender's rank
  // is skewed (rank 0 sends the most) and spread over the kinds by a step coprime to 200.
  await client.query('SELECT setseed(0.17)');
  await client.query(`CREATE TEMP TABLE bench_messages AS
    SELECT d.g, s.n AS sender, s.id AS counterparty_id, s.orgnr, s.role,
      CASE WHEN s.role = 'custodian' THEN (${sqlArray(REPORT_TYPES)})[1 + floor(d.r_type * ${REPORT_TYPES.length})::int]
           ELSE (${sqlArray(PLAN_TYPES)})[1 + floor(d.r_type * ${PLAN_TYPES.length})::int] END AS message_type,
      CASE s.role WHEN 'employer' THEN s.agreement WHEN 'administrator' THEN s.agreement + floor(d.r_agreement * ${AGREEMENTS_PER_ADMINISTRATOR})::int END AS agreement,
      CASE WHEN s.role = 'custodian' THEN 1 + floor(d.r_items * 3)::int ELSE 1 + floor(power(d.r_items, 2) * 7)::int END AS items,
      CASE WHEN d.g > $1::int - 20 THEN 'received' WHEN d.r_status < 0.025 THEN 'rejected' WHEN d.r_status < 0.04 THEN 'duplicate'
           WHEN d.r_status < 0.0405 THEN 'dead' ELSE 'applied' END AS status,
      CASE WHEN d.r_outcome < 0.9 THEN 'accepted' WHEN d.r_outcome < 0.97 THEN 'partially_accepted' ELSE 'rejected' END AS applied_outcome,
      (ARRAY['folder','folder','folder','folder','folder','folder','sftp','sftp','mail','ssek'])[1 + floor(d.r_channel * 10)::int] AS channel,
      $2::timestamptz - ($1::int - d.g) * (interval '365 days' / $1::int) AS received_at
    FROM (SELECT g, (floor(200 * power(random(), 2))::int * 37) % 200 AS sender, random() AS r_type, random() AS r_agreement, random() AS r_items,
            random() AS r_status, random() AS r_outcome, random() AS r_channel
          FROM generate_series(1, $1::int) AS g) d
    JOIN bench_senders s ON s.n = d.sender`, [count, now]);

  let started = performance.now();
  await client.query(`INSERT INTO messages (id, seq, counterparty_id, channel, external_id, header_message_id, sha256, size_bytes, raw, message_type,
      status, outcome, error_code, dead_stage, duplicate_of, received_at, updated_at)
    SELECT ${MESSAGE_ID_SQL}, g, counterparty_id, channel, lower(message_type) || '-' || g || '.xml', 'MSG-' || g,
      encode(sha256(convert_to(g::text, 'UTF8')), 'hex'), octet_length(doc), convert_to(doc, 'UTF8'), message_type, status,
      CASE status WHEN 'applied' THEN applied_outcome WHEN 'rejected' THEN 'rejected' END,
      CASE status WHEN 'rejected' THEN 'SCHEMA_VIOLATION' END,
      CASE status WHEN 'dead' THEN 'apply' END,
      CASE WHEN status = 'duplicate' AND g > 1 THEN ${MESSAGE_ID_OF_SEQ('g - 1')} END,
      received_at, received_at + interval '2 seconds'
    FROM (SELECT b.*, format('<?xml version="1.0" encoding="UTF-8"?><%1$s xmlns="urn:se:depot-gateway:v1"><Header><MessageId>MSG-%2$s</MessageId>'
        || '<CreatedAt>%3$s</CreatedAt><OrganisationNumber>%4$s</OrganisationNumber></Header>%5$s</%1$s>',
        message_type, g, received_at, orgnr, repeat('<Item><ItemId>' || g || '</ItemId><Value>' || (g % 97) * 125 || '.00</Value></Item>', items)) AS doc
      FROM bench_messages b) generated
    ORDER BY g`);
  await client.query(`SELECT setval('messages_seq_seq', $1)`, [count]);
  const messagesSeconds = (performance.now() - started) / 1000;
  log(`${count.toLocaleString('en')} messages written in ${messagesSeconds.toFixed(1)} s`);

  started = performance.now();
  // Every key's message exists by construction: the foreign key's check, a lookup and a row
  // lock on the message for each of five million keys, would double the load time.
  await client.query('SET session_replication_role = replica');
  // The employees a plan document names, each drawn from its agreement's staff; custodian
  // reports name accounts of their custodian.
  await client.query(`INSERT INTO document_keys (kind, value, message_id, seq)
    SELECT DISTINCT kind, value, ${MESSAGE_ID_SQL}, g FROM (
      SELECT g, 'organisationsnummer' AS kind, orgnr AS value FROM bench_messages WHERE status = 'applied'
      UNION ALL SELECT g, 'agreement', 'AGR-' || agreement FROM bench_messages WHERE status = 'applied' AND agreement IS NOT NULL
      UNION ALL SELECT b.g, key.kind, key.value FROM bench_messages b
        CROSS JOIN LATERAL (SELECT (b.agreement * 7919 + floor(random() * ${EMPLOYEES_PER_AGREEMENT})::int) % ${PEOPLE} AS person FROM generate_series(1, b.items)) named
        JOIN bench_people p ON p.n = named.person
        CROSS JOIN LATERAL (VALUES ('personnummer', p.pnr), (CASE WHEN b.message_type = ANY (${sqlArray(TYPES_WITH_INSURANCE)}) THEN 'insurance' END, 'INS-' || (100000 + named.person))) AS key(kind, value)
        WHERE b.status = 'applied' AND b.agreement IS NOT NULL AND key.kind IS NOT NULL
      UNION ALL SELECT b.g, 'custody-account', 'DEPA-' || (b.sender * 100000 + floor(random() * ${ACCOUNTS_PER_CUSTODIAN})::int)
        FROM bench_messages b CROSS JOIN LATERAL generate_series(1, b.items) WHERE b.status = 'applied' AND b.role = 'custodian'
    ) keys
    ORDER BY kind, value, g`);
  await client.query('SET session_replication_role = DEFAULT');
  const keysSeconds = (performance.now() - started) / 1000;
  const { rows } = await client.query<{ count: string }>('SELECT count(*) AS count FROM document_keys');
  log(`${Number(rows[0]!.count).toLocaleString('en')} document keys written in ${keysSeconds.toFixed(1)} s`);

  started = performance.now();
  // A year-old store has been vacuumed and analysed by autovacuum many times over.
  await client.query('VACUUM (ANALYZE) messages, document_keys');
  const vacuumSeconds = (performance.now() - started) / 1000;
  log(`vacuumed and analysed in ${vacuumSeconds.toFixed(1)} s`);
  return { messagesSeconds, keysSeconds, vacuumSeconds };
}
