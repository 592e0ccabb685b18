import { z } from 'zod';
import { countFlagSchema } from './duration-flag';

export const portFlagSchema = countFlagSchema.pipe(z.number().max(65_535, 'a port is at most 65535'));

/** The dashboard's own flags, shared by `durable-turns dashboard` (and its port by `dev`). */
export const dashboardFlagsSchema = z
  .object({
    port: portFlagSchema.default(8234),
    listen: z.string().min(1).default('127.0.0.1'),
    tlsCert: z.string().min(1).optional(),
    tlsKey: z.string().min(1).optional(),
    behindTlsProxy: z.boolean().default(false),
    webUi: z.url('expected the Web UI address, e.g. http://127.0.0.1:8233').optional(),
    identityHeader: z.string().min(1).optional(),
  })
  .refine((f) => (f.tlsCert === undefined) === (f.tlsKey === undefined), {
    message: 'give --tls-cert and --tls-key together',
    path: ['tlsCert'],
  });
