import { z } from 'zod';

/**
 * `redis`: Redis reached through Redis Sentinel, beside (instead of) `redisUrl`. The
 * gateway asks the sentinels which server is the primary of the set `name`, connects to
 * it, and asks again whenever that connection is lost or a command meets a replica
 * (READONLY) — so a failover from primary to replica is followed without a restart.
 *
 * ```yaml
 * redis:
 *   name: depot            # the set's name in the sentinels' `sentinel monitor depot …`
 *   sentinels:
 *     - { host: 10.0.1.11, port: 26379 }
 *     - { host: 10.0.1.12, port: 26379 }
 *     - { host: 10.0.1.13, port: 26379 }
 *   password: …            # the Redis servers' (requirepass / masterauth), if any
 *   sentinelPassword: …    # the sentinels' own (sentinel requirepass), if any
 * ```
 */
export const redisSentinelSchema = z.strictObject({
  /** The sentinels to ask, any of them; at least one. */
  sentinels: z.array(z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(26379),
  })).min(1),
  /** The name the sentinels monitor the set under. */
  name: z.string().min(1),
  /** Username of the Redis servers (ACL), if any. */
  username: z.string().min(1).optional(),
  /** Password of the Redis servers, if any. */
  password: z.string().min(1).optional(),
  /** Username of the sentinels (ACL), if any. */
  sentinelUsername: z.string().min(1).optional(),
  /** Password of the sentinels, if any. */
  sentinelPassword: z.string().min(1).optional(),
  /** The Redis database number. Default 0. */
  db: z.number().int().min(0).max(15).default(0),
});

export type RedisSentinelConfig = z.infer<typeof redisSentinelSchema>;
