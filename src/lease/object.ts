/**
 * The Lease Durable Object: one per lease, the lease's only writer, holding its state machine and
 * one alarm at its nearest deadline (DESIGN.md "Shape"). Declared here so that the binding and its
 * SQLite storage exist from the first deployment; the state machine lands with leases.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

export class LeaseObject extends DurableObject<Env> {}
