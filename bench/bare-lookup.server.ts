/**
 * The yardstick of `npm run bench -- rest`: a bare Fastify server answering
 * GET /InsuranceApplication/:id with one primary-key lookup in PostgreSQL — no
 * authentication, no access rule, no schema. Same table, same pool size as the gateway.
 * Run as its own process: DATABASE_URL, PORT.
 */
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify({ logger: false });
app.get('/InsuranceApplication/:id', async (request, reply) => {
  const { rows } = await pool.query('SELECT application_id, status, submitted_at FROM applications WHERE application_id = $1', [(request.params as { id: string }).id]);
  if (rows.length === 0) return reply.code(404).send({ status: 404 });
  return rows[0];
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('listening\n');
process.on('SIGTERM', () => void app.close().then(() => pool.end()).then(() => process.exit(0)));
