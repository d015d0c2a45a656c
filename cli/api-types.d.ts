export interface paths {
    "/v1/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness (no authentication) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Serving */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            ok: boolean;
                            version: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an org and its first admin key (bootstrap token only) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateOrg"];
                };
            };
            responses: {
                /** @description The org and its admin key */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CreatedOrg"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sim/ledger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every simulated machine's life: created, each interval it ran or sat stopped, destroyed (bootstrap token) */
        get: {
            parameters: {
                query?: {
                    label_prefix?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The ledger */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SimLedger"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sim/faults": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The simulated cloud's faults in force (bootstrap token) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The faults */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SimFaults"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        /** Change the simulated cloud's faults; fields left out keep their value (bootstrap token) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        api_error_rate?: number;
                        rate_limit_rate?: number;
                        ambiguous_create_rate?: number;
                        boot_failure_rate?: number;
                        vanish_rate?: number;
                        no_capacity_rate?: number;
                        /** @description a spot machine is taken back (EXITED, interrupted) vanish_min_ms..vanish_max_ms after it first runs */
                        preempt_rate?: number;
                        provision_delay_ms?: number;
                        boot_delay_ms?: number;
                        retry_after_s?: number;
                        vanish_min_ms?: number;
                        vanish_max_ms?: number;
                        seed?: number;
                        billing_window_ms?: number;
                        billing_delay_ms?: number;
                        billing_markup?: number;
                        /** @description how often a sim machine's agent heartbeats */
                        agent_heartbeat_ms?: number;
                        /** @description how fast a sim machine's model server produces tokens */
                        model_tokens_per_s?: number;
                    };
                };
            };
            responses: {
                /** @description The faults now in force */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SimFaults"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sim/machines/{id}/{action}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start, stop or destroy a simulated machine as a provider's console would, behind lessor's back, or preempt a spot one as the cloud would (bootstrap token) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    action: "start" | "stop" | "destroy" | "preempt";
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The machine after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SimMachine"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the machine is not in a status the action applies to (details: status, action); not_interruptible: preempt of a machine not of a spot offer */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state" | "not_interruptible";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sim/leases/{id}/agent-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mint (rotate) a lease's agent token, for tests: shown once (bootstrap token; not in production) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The lease token; the one before stops working */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            token: string;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description sim_only: refused in production, and for a lease that is not on the simulated cloud */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the lease is released */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sim/leases/{id}/enroll-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mint a lease's enrollment token, as a create does, for tests (bootstrap token; not in production) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The enrollment token; the lease token before stops working */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            enroll_token: string;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description sim_only: refused in production, and for a lease that is not on the simulated cloud */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the lease is released */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sim/leases/{id}/agent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What a lease's agent reported: heartbeat, exit, log, commands (bootstrap token; not in production) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The agent's side of the lease */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SimAgentSnapshot"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description sim_only: refused in production, and for a lease that is not on the simulated cloud */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sim/leases/{id}/agent-commands": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Queue an exec or a signal for a lease's agent (bootstrap token; not in production) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        kind: "exec";
                        cmd: string;
                    } | {
                        /** @enum {string} */
                        kind: "signal";
                        /** @enum {string} */
                        signal: "TERM" | "KILL";
                    };
                };
            };
            responses: {
                /** @description The command, queued */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SimAgentCommand"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description sim_only: refused in production, and for a lease that is not on the simulated cloud */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the lease is released; too_many_commands: 100 are open already */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/meter": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the control plane consumed in this isolate since it started (bootstrap token) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The counts */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Meter"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/agent.sh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent script (no authentication: it holds no secret) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A POSIX sh script */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/x-shellscript": string;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/enroll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The agent's first call: the enrollment token its create carried (`lse_...`) for the lease token */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["AgentEnroll"];
                };
            };
            responses: {
                /** @description Enrolled */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description the lease token; the one before stops working */
                            token: string;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no enrollment token, not this lease's, or closed to this nonce */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/heartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The machine's agent is alive (liveness, never activity); on a model's machine it carries the model server's metrics, whose requests are the lease's activity */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": components["schemas"]["AgentHeartbeat"];
                };
            };
            responses: {
                /** @description Recorded */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            last_heartbeat_at: string;
                            /**
                             * @description what the metrics said: requests on the model server, none, or nothing lessor can read; null: no metrics sent
                             * @enum {string|null}
                             */
                            model_activity: "active" | "idle" | "unobservable" | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A chunk of the command's output; a chunk whose Lessor-Log-Seq was seen before is stored once */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                    /** @description the chunk's sequence number, from 0, one more per chunk */
                    "lessor-log-seq": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "text/plain": string;
                };
            };
            responses: {
                /** @description Stored, or seen before */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            seq: number;
                            stored: boolean;
                            duplicate: boolean;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: a chunk is at most 1048576 bytes */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: send text/plain (or application/octet-stream) */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/exit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The command ended: its exit code, or the signal that ended it (the first report wins) */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["AgentExitReport"];
                };
            };
            responses: {
                /** @description The exit as recorded */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description false: an earlier report was kept */
                            recorded: boolean;
                            exit: components["schemas"]["AgentExit"];
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/commands": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Commands queued for the machine (exec, signal, collect); waits up to `wait` seconds (at most 25) for one */
        get: {
            parameters: {
                query?: {
                    wait?: number | null;
                    /** @description `1`: this agent carries out `collect`, so a release waits for the outputs (docs/artifacts.md) */
                    collect?: "0" | "1";
                };
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The commands due (maybe none) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            commands: components["schemas"]["AgentCommand"][];
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/commands/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The result of one command (the first result wins) */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["AgentCommandResult"];
                };
            };
            responses: {
                /** @description The result as recorded */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            recorded: boolean;
                            id: string;
                            exit_code: number | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such command for this lease */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/workdir": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The lease's workdir bundle (tar.gz), with Lessor-Sha256; 404 no_workdir when it has none */
        get: {
            parameters: {
                query?: never;
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The bundle */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/gzip": string;
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description no_workdir: the lease was created without one */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "no_workdir";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/outputs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** The outputs' manifest: what every file under LESSOR_OUT is; `outputs_uploaded` comes when all are stored */
        put: {
            parameters: {
                query?: never;
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["OutputsManifest"];
                };
            };
            responses: {
                /** @description Kept */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            files: number;
                            bytes: number;
                            missing_count: number;
                        };
                    };
                };
                /** @description invalid_request; invalid_path: a path (details.field) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request" | "invalid_path";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent/artifacts/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A multipart upload's stored parts, to resume from */
        get: {
            parameters: {
                query: {
                    upload_id: string;
                };
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path: {
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The upload */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ArtifactUpload"];
                    };
                };
                /** @description invalid_request; invalid_path; checksum_mismatch: the bytes' SHA-256 is not Lessor-Sha256 (nothing stored); invalid_part */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request" | "invalid_path" | "checksum_mismatch" | "invalid_part";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such upload of this lease and path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description storage_quota_exceeded: the org's quota (details: limit_bytes, used_bytes); parts_missing (details: missing) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "storage_quota_exceeded" | "parts_missing";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description file_too_large, lease_artifacts_full, payload_too_large: a cap (details: limit_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "file_too_large" | "lease_artifacts_full" | "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        /** One file of at most 8388608 bytes, or with upload_id and part one part of a bigger one */
        put: {
            parameters: {
                query?: {
                    upload_id?: string;
                    part?: number;
                };
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                    /** @description the body's SHA-256, 64 hex digits */
                    "lessor-sha256": string;
                    "content-length": string;
                };
                path: {
                    path: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/octet-stream": string;
                };
            };
            responses: {
                /** @description Stored: the artifact, or the upload's parts */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Artifact"] | components["schemas"]["ArtifactUpload"];
                    };
                };
                /** @description invalid_request; invalid_path; checksum_mismatch: the bytes' SHA-256 is not Lessor-Sha256 (nothing stored); invalid_part */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request" | "invalid_path" | "checksum_mismatch" | "invalid_part";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such upload of this lease and path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description storage_quota_exceeded: the org's quota (details: limit_bytes, used_bytes); parts_missing (details: missing) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "storage_quota_exceeded" | "parts_missing";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description file_too_large, lease_artifacts_full, payload_too_large: a cap (details: limit_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "file_too_large" | "lease_artifacts_full" | "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        /** `?uploads`: begin a multipart upload of {size, sha256}; `?upload_id=&complete`: end it, the whole file's digest checked */
        post: {
            parameters: {
                query?: {
                    uploads?: string;
                    upload_id?: string;
                    complete?: string;
                };
                header: {
                    /** @description the lease the token was made for */
                    "lessor-lease-id": string;
                };
                path: {
                    path: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ArtifactFile"];
                };
            };
            responses: {
                /** @description Completed: the artifact */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Artifact"] | components["schemas"]["ArtifactUpload"];
                    };
                };
                /** @description Begun: the upload */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Artifact"] | components["schemas"]["ArtifactUpload"];
                    };
                };
                /** @description invalid_request; invalid_path; checksum_mismatch: the bytes' SHA-256 is not Lessor-Sha256 (nothing stored); invalid_part */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request" | "invalid_path" | "checksum_mismatch" | "invalid_part";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no lease token, or not this lease's (`Lessor-Lease-Id`) */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such upload of this lease and path */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description storage_quota_exceeded: the org's quota (details: limit_bytes, used_bytes); parts_missing (details: missing) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "storage_quota_exceeded" | "parts_missing";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description lease_released: the lease is released; the agent exits */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "lease_released";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description file_too_large, lease_artifacts_full, payload_too_large: a cap (details: limit_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "file_too_large" | "lease_artifacts_full" | "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: the body is not of the type the route reads */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the lease token's calls (details.budget `lease_token`) or log bytes (`log_bytes`) a minute, its or its org's open long polls (`agent_polls`), or this address's failed authentications (`auth_failures`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ingress/{provider}/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A provider's webhook: a hint that one of its machines changed; the lease holding it reads it back */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    provider: string;
                    /** @description the provider account's ingress token */
                    token: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description A delivery of an event already taken in: nothing done */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IngressAnswer"];
                    };
                };
                /** @description Taken in; a lease that holds the machine is poked after this answer */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IngressAnswer"];
                    };
                };
                /** @description invalid_request: the body is not JSON, or the event id is longer than 256 characters */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: the token or the provider's signature is wrong, or its timestamp more than 5 minutes off */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no webhooks from this provider, or (sim) no LESSOR_INGRESS_TOKEN */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description ingress_url_retired: the installation's token on vast or runpod */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "ingress_url_retired";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: see details.budget (auth_failures, ingress_events) and Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/org": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's org and how the caller is authenticated */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The org */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Org"] & {
                            caller: {
                                /** @enum {string} */
                                kind: "api_key" | "jwt";
                                scope: string | null;
                                subject: string;
                            };
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/org/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The org's settings */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The settings */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrgSettings"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        /**
         * Change the org's settings: the fields given are set, the others kept
         * @description `require_image_digest`: a lease (and a validate) whose image is not pinned by `@sha256:`, or that names none, is refused with 409 image_not_pinned before anything is rented.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["OrgSettingsUpdate"];
                };
            };
            responses: {
                /** @description The settings now */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["OrgSettings"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the org's API keys (never their secrets) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of keys */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["ApiKey"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Create an API key; its secret is shown in this answer only */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateApiKey"];
                };
            };
            responses: {
                /** @description The key, with its secret */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiKey"] & {
                            secret: string;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description limit_reached: 100 live keys, or 1000 with the revoked ones (details.limit) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "limit_reached";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API key; it fails on its next request */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The revoked key */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ApiKey"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/issuers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List trusted issuers */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of issuers */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Issuer"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Trust JWTs from an issuer (its JWKS URL, iss and aud) as this org */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateIssuer"];
                };
            };
            responses: {
                /** @description The trusted issuer */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Issuer"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8; invalid_jwks_url: lessor may not fetch the jwks_url (details.reason) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description issuer_exists: this org already trusts that iss and aud (details.id); issuer_taken: another org registered them; limit_reached: the org trusts as many issuers as it may */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "issuer_exists" | "issuer_taken" | "limit_reached";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/issuers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Stop trusting an issuer; its tokens fail on their next request */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The issuer, no longer trusted */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Issuer"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The providers this installation rents from: which this org has a key for, and whether it last verified */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Every enabled provider */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Provider"][];
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/providers/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Store this org's key for a provider, after one read-only call proves it works */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PutProvider"];
                };
            };
            responses: {
                /** @description Stored; `verification` says whether the provider answered */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Provider"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_account_mismatch: the new key does not see every machine this org's live leases hold on the provider (details: not_seen, live_machines, leases); nothing changed */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "provider_account_mismatch";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_key_refused: the provider refused the key or its settings; nothing stored */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "provider_key_refused";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_keys_disabled: no LESSOR_MASTER_KEY on this installation. provider_unavailable: the provider did not answer the list that proves the new key sees the live leases' machines; nothing changed */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "provider_keys_disabled" | "provider_unavailable";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** Forget this org's key for a provider (refused while a lease on it may hold a machine) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The provider, no longer configured */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Provider"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_in_use: live leases (or volumes) on this provider need the key to end their machines (or delete them) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "provider_in_use";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/providers/{name}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check this org's stored key again with one read-only call */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The provider, with the new verification */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Provider"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/providers/{name}/ingress-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A new webhook ingress token for this org's account at the provider, shown once; it replaces the one before (docs/ingress.md) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The token and its URL */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["IngressToken"];
                    };
                };
                /** @description invalid_request: not a provider name; ingress_not_per_account: sim or lambda */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request" | "ingress_not_per_account";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/gpus": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** GPU classes with their offer counts and cheapest price */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Every GPU class */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["GpuClass"][];
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/offers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Offers from every provider this org can rent from, cheapest first */
        get: {
            parameters: {
                query?: {
                    gpu?: string;
                    min_vram_gb?: number | null;
                    min_gpus?: number;
                    region?: string;
                    provider?: string;
                    max_hourly_usd?: number | null;
                    spot?: "true" | "false";
                    min_cuda?: number;
                    min_reliability?: number | null;
                    min_inet_down_mbps?: number | null;
                    min_inet_up_mbps?: number | null;
                    max_startup_s?: number;
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of offers */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["CatalogOffer"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Open models lessor serves, with the memory each needs and the GPU specs it fits */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Every model, smallest first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Model"][];
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/quotes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Choose the offer that fits a spec, with fallbacks, rate and cost ceiling (Idempotency-Key honoured) */
        post: {
            parameters: {
                query?: never;
                header?: {
                    "idempotency-key"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["QuoteRequest"];
                };
            };
            responses: {
                /** @description The quote */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Quote"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description no_capacity: nothing fits; details name the constraint (and the volumes, where it names some). provider_not_configured: the spec names only providers this org has no working key for. volume_busy: a volume it names is being made or deleted. idempotency_in_progress: a request with this Idempotency-Key is still running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "no_capacity" | "provider_not_configured" | "volume_busy" | "idempotency_in_progress";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description idempotency_mismatch: this Idempotency-Key was used with a different body */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "idempotency_mismatch";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/quotes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A quote, exactly as it was answered */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The quote */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Quote"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List leases, newest first (from the index) */
        get: {
            parameters: {
                query?: {
                    state?: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released";
                    kind?: "deployment" | "scratch" | "job";
                    /** @description every lease created with this name, released ones included (at most one is live) */
                    name?: string;
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of leases */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Lease"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Lease a machine for a spec or a quote (Idempotency-Key honoured) */
        post: {
            parameters: {
                query?: never;
                header?: {
                    "idempotency-key"?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateLease"];
                };
            };
            responses: {
                /** @description The lease, provisioning */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Lease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description over_budget: the lease would pass one of the org's caps (details: cap, limit_usd, committed_usd, requested_usd); nothing was rented */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "over_budget";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description quote_expired; quote_drift: the offer's price rose beyond the quote's tolerance; provider_not_configured: the org cannot rent from the spec's or the quote's providers; capability_missing: a lease with a cmd, and no provider it may use runs lessor's agent (details: capabilities, providers); no_capacity: nothing fits (details name the constraint, and the volumes where it mounts some); volume_busy: a volume it mounts is being made or deleted; image_not_pinned: the org requires images pinned by digest (PUT /v1/org/settings `require_image_digest`) and the image is not, or none is named (details: field); name_taken: a live lease of the org has this name (details: lease_id); quota_exceeded: the lease's GPUs would pass the org's GPU quota and no scratch lease could be displaced for it (details: quota, limit, held, requested); idempotency_in_progress: a request with this Idempotency-Key is still running */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "quote_expired" | "quote_drift" | "provider_not_configured" | "capability_missing" | "no_capacity" | "volume_busy" | "image_not_pinned" | "name_taken" | "quota_exceeded" | "idempotency_in_progress";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description idempotency_mismatch: this Idempotency-Key was used with a different body */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "idempotency_mismatch";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description preemption_failed: a scratch lease this deployment displaces could not be told to release; nothing was rented (details: leases) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "preemption_failed";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/validate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check a lease body without renting anything: the warnings its lease would carry, or the refusal its create would meet
         * @description Takes the body of POST /v1/leases. Warnings: `stopped_disk_unbounded` (stopped_ttl null on a provider whose stopped machines bill for disk), `idle_timeout_unreachable` (idle_timeout longer than max_lifetime), `mutable_image_tag` (an image not pinned by `@sha256:`), `ttl_shorter_than_boot` (a ttl shorter than the policy's boot_timeout, the boot lessor allows: it keeps no boot estimate per offer). Nothing is rented, reserved or named.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateLease"];
                };
            };
            responses: {
                /** @description The warnings (empty: none) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            warnings: components["schemas"]["ConfigWarning"][];
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description quote_expired; quote_drift: the offer's price rose beyond the quote's tolerance; provider_not_configured: the org cannot rent from the spec's or the quote's providers; capability_missing: a lease with a cmd, and no provider it may use runs lessor's agent (details: capabilities, providers); no_capacity: nothing fits (details name the constraint, and the volumes where it mounts some); volume_busy: a volume it mounts is being made or deleted; image_not_pinned: the org requires images pinned by digest (PUT /v1/org/settings `require_image_digest`) and the image is not, or none is named (details: field) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "quote_expired" | "quote_drift" | "provider_not_configured" | "capability_missing" | "no_capacity" | "volume_busy" | "image_not_pinned";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A lease from its object, with `guard`: what the policy would do, why, and when */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The lease */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["GuardedLease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A lease's transitions with their reasons, oldest first: a page after an event id, or a live stream (`?follow=1`) that ends once the lease is released */
        get: {
            parameters: {
                query?: {
                    /** @description answer only events after this event id */
                    after?: string;
                    /** @description a page holds at most this many events (default and most: 200) */
                    limit?: number;
                    /** @description 1: answer a Server-Sent Events stream (so does `Accept: text/event-stream` without `follow`); 0: never */
                    follow?: "0" | "1";
                };
                header?: {
                    /** @description where a reconnecting stream resumes; wins over `after` */
                    "last-event-id"?: string;
                    accept?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of events (`next_after`: ask `after=` it for the next; null at the end), or the stream */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["LeaseEvent"][];
                            next_after: number | null;
                            released: boolean;
                        };
                        "text/event-stream": string;
                    };
                };
                /** @description invalid_request: the query does not match the schema; invalid_last_event_id: Last-Event-ID is not an event id */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request" | "invalid_last_event_id";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the credential's request budget, or its or its org's open streams (details.budget `streams`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/end": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Release the lease: destroy its machine (idempotent) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description The lease after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Lease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop the machine, keeping its disk */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description The lease after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Lease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a stopped machine: a new session */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description The lease after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Lease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description over_budget: the lease's new worst case would pass one of the org's caps; nothing changed */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "over_budget";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/unlock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Remove the lock */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description The lease after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Lease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/heartbeat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark activity now */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": Record<string, never>;
                };
            };
            responses: {
                /** @description The lease after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Lease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/extend": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Extend the ttl */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        by: components["schemas"]["Duration"] & unknown;
                    };
                };
            };
            responses: {
                /** @description The lease after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Lease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description over_budget: the lease's new worst case would pass one of the org's caps; nothing changed */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "over_budget";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/lock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark the lease in use until a time (never beyond the hard caps) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        for: components["schemas"]["Duration"] & unknown;
                    };
                };
            };
            responses: {
                /** @description The lease after the action */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Lease"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/kill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the lease's command: TERM, wait up to `timeout` for its exit, then KILL when `escalate` (idempotent) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        timeout?: components["schemas"]["Duration"] & unknown;
                        /** @description send KILL when TERM did not end it within timeout; default true */
                        escalate?: boolean;
                    };
                };
            };
            responses: {
                /** @description What became of the command */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * @description stopped: it ended (or had already); unknown: the agent could not be reached, assume nothing stopped; still_alive: no exit came
                             * @enum {string}
                             */
                            outcome: "stopped" | "unknown" | "still_alive";
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The machine's output: the last lines as text, or followed as Server-Sent Events (`follow=1` or `Accept: text/event-stream`) */
        get: {
            parameters: {
                query?: {
                    /** @description only the last N lines (the text answer); default all */
                    tail?: number | null;
                    /** @description 1: answer a Server-Sent Events stream (so does `Accept: text/event-stream` without `follow`); 0: never */
                    follow?: "0" | "1";
                };
                header?: {
                    /** @description where a reconnecting stream resumes; wins over `after` */
                    "last-event-id"?: string;
                    accept?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description text/plain: the log (the dropped-output marker first when output was dropped), with Lessor-Log-Bytes and Lessor-Log-Dropped-Bytes. text/event-stream: `retry:` first, then one event per chunk (`id:` its sequence number, `data:` its text), a `dropped` event when output it would have sent is gone, a `: keepalive` comment every 15 s, and an `end` event (`data:` `{reason: "exited", exit}` or `{reason: "released"}`) before the stream ends */
                200: {
                    headers: {
                        /** @description text/plain only: bytes the log holds */
                        "lessor-log-bytes"?: string;
                        /** @description text/plain only: bytes dropped from its start */
                        "lessor-log-dropped-bytes"?: string;
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                        "text/event-stream": string;
                    };
                };
                /** @description invalid_request: the query does not match the schema; invalid_last_event_id: Last-Event-ID is not an event id */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request" | "invalid_last_event_id";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description logs_expired: the lease was released more than 7 days ago and its log deleted (details: expired_at); the lease itself still answers */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "logs_expired";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the credential's request budget, or its or its org's open streams (details.budget `streams`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/exec": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run a command on the machine and wait for its result (at most the timeout, the lease's ttl and 600 s) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["ExecRequest"];
                };
            };
            responses: {
                /** @description The exec's result: done (exit code 0) or failed */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Exec"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: the lease is released, so nothing runs on it (details: state); too_many_commands: 100 commands of the lease are open */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state" | "too_many_commands";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description exec_timeout: no result within the wait; the exec goes on, and GET /v1/leases/:id/exec/:exec_id answers it later (details: exec_id) */
                504: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "exec_timeout";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/exec/{exec_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One exec of the lease: pending, running, done or failed */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    exec_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The exec */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Exec"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/artifacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A lease's artifacts, by path */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of artifacts */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Artifact"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/leases/{id}/artifacts/{path}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An artifact's bytes, streamed; `Range: bytes=a-b` answers 206 */
        get: {
            parameters: {
                query?: never;
                header?: {
                    range?: string;
                };
                path: {
                    id: string;
                    /** @description the file's path under LESSOR_OUT (docs/artifacts.md "Paths") */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The bytes (Lessor-Sha256, ETag, Accept-Ranges) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/octet-stream": string;
                    };
                };
                /** @description The range asked for (Content-Range) */
                206: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/octet-stream": string;
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description range_not_satisfiable: the range begins past the end (Content-Range: bytes *\/size) */
                416: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "range_not_satisfiable";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete an artifact */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    /** @description the file's path under LESSOR_OUT (docs/artifacts.md "Paths") */
                    path: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Deleted */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Upload a workdir bundle (tar.gz) for a job or scratch lease's `workdir`; 400 checksum_mismatch stores nothing */
        post: {
            parameters: {
                query?: never;
                header: {
                    /** @description the body's SHA-256, 64 hex digits */
                    "lessor-sha256": string;
                    "content-length": string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/gzip": string;
                };
            };
            responses: {
                /** @description Stored */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Upload"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description storage_quota_exceeded: the org's storage quota (details: limit_bytes, used_bytes) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "storage_quota_exceeded";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description upload_too_large: over LESSOR_UPLOAD_MAX_BYTES (details: limit_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "upload_too_large" | "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unsupported_media_type: send application/gzip */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unsupported_media_type";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One workdir bundle */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The bundle */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Upload"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deployments/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A deployment and its lease's state */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The deployment */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Deployment"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        /**
         * Serve a model under a name: made, started again or found (idempotent by name)
         * @description 202 when this call rented or started a machine, 200 when it found one. `state` is its lease's (`ready` once the model answers `GET /v1/models`). A configuration (model, spec, image, engine_args) other than the running one is 409 `config_changed` unless `?recreate=true`, which ends the old machine and rents a new one.
         */
        put: {
            parameters: {
                query?: {
                    /** @description true: a changed configuration replaces the machine */
                    recreate?: "true" | "false";
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["DeploymentConfig"];
                };
            };
            responses: {
                /** @description The deployment, found as it is */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Deployment"];
                    };
                };
                /** @description The deployment, its machine rented or started */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Deployment"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description over_budget: the deployment's lease would pass one of the org's caps; nothing was rented */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "over_budget";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description config_changed: the deployment runs another model, spec, image or engine_args (send ?recreate=true to replace its machine); deployment_busy: it was deleted while this request ran; limit_reached: 100 deployments already; no_placement: the model does not fit the spec's machine (details: model, asked, reason, min_vram_gb, fits, cpu_cores; `GET /v1/catalog/models`); provider_not_configured, capability_missing, no_capacity, volume_busy, image_not_pinned: its lease was refused (details as for POST /v1/leases) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "config_changed" | "deployment_busy" | "limit_reached" | "no_placement" | "provider_not_configured" | "capability_missing" | "no_capacity" | "volume_busy" | "image_not_pinned";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_keys_disabled: the installation has no LESSOR_MASTER_KEY to seal the deployment's key with; preemption_failed: as POST /v1/leases */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "provider_keys_disabled" | "preemption_failed";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        post?: never;
        /** End the deployment's lease and forget the deployment (its name and key) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The deployment as it was; its lease is releasing */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Deployment"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description invalid_state: its lease could not be ended */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_state";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deployments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the org's deployments by name */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of deployments */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Deployment"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deployments/{name}/rotate-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Give the deployment a new api_key; the old one stops working at once */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The deployment, with its new key */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Deployment"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deployments/{name}/env": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OPENAI_BASE_URL, OPENAI_API_KEY and LESSOR_MODEL_ID as shell `export` lines */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Shell lines: `eval "$(...)"` */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/volumes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the org's volumes by name */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of volumes */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Volume"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Make a volume, or find the one of this name (idempotent by name) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateVolume"];
                };
            };
            responses: {
                /** @description The volume of this name, found */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Volume"];
                    };
                };
                /** @description The volume, made */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Volume"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description over_budget: what the volume bills to the month's end, or its rate, would pass one of the org's caps (details: cap, limit_usd, committed_usd, requested_usd) */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "over_budget";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description volume_exists: the name holds a volume of another size, provider or region; volume_busy: it is being deleted; limit_reached: 100 volumes already; provider_not_configured, capability_missing: the provider cannot make it; no_capacity: no region to default to; provider_refused: the provider said no (details.error) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "volume_exists" | "volume_busy" | "limit_reached" | "provider_not_configured" | "capability_missing" | "no_capacity" | "provider_refused";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_unavailable: the provider did not answer; send the request again (Retry-After) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "provider_unavailable";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/volumes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A volume */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The volume */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Volume"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a volume and its data */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The volume as it was; it is gone */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Volume"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description volume_in_use: a lease not released mounts it (details.leases); provider_refused: the provider said no */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "volume_in_use" | "provider_refused";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_unavailable: the provider did not answer; send the request again (Retry-After) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "provider_unavailable";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/machines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every machine lessor's label marks in the org's provider accounts and the sim: its lease, or when the reconciler stops and destroys it as an orphan */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The machines, and how listing each provider account went (a failure there is not an error here) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Machines"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/budget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The org's caps, and what counts against them now */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The budget */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Budget"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        /** Set the org's monthly cap and its cap on concurrent hourly spend (fields left out keep their value; null removes a cap) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PutBudget"];
                };
            };
            responses: {
                /** @description The budget now */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Budget"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/quota": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The org's GPU quota, and the GPUs its live leases hold */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The quota */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["GpuQuota"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        /** Set the org's GPU quota: the most GPUs its live leases hold at once, and per kind if wanted (replaced whole; gpus null removes it) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["PutGpuQuota"];
                };
            };
            responses: {
                /** @description The quota now */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["GpuQuota"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Estimate, actual and disputed spend over a range, per provider, GPU class, lease or day */
        get: {
            parameters: {
                query?: {
                    /** @description default: the first of this month (UTC) */
                    from?: string;
                    /** @description default: now */
                    to?: string;
                    group_by?: "provider" | "gpu" | "lease" | "day";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Spend per group */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Usage"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receipts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The org's receipts, newest first */
        get: {
            parameters: {
                query?: {
                    status?: "settled" | "disputed";
                    lease_id?: string;
                    /** @description a volume's receipts, one a period */
                    volume_id?: string;
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of receipts */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Receipt"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/receipts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A receipt, with every billing record it sums */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The receipt */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Receipt"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every event of the org's leases, in the order the org's log took them: a page after an event id, or a live stream (`?follow=1`) */
        get: {
            parameters: {
                query?: {
                    /** @description answer only events after this event id */
                    after?: string;
                    /** @description a page holds at most this many events (default and most: 200) */
                    limit?: number;
                    /** @description 1: answer a Server-Sent Events stream (so does `Accept: text/event-stream` without `follow`); 0: never */
                    follow?: "0" | "1";
                };
                header?: {
                    /** @description where a reconnecting stream resumes; wins over `after` */
                    "last-event-id"?: string;
                    accept?: string;
                };
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of events (`next_after`: ask `after=` it for the next; null at the end), or the stream */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["OrgEvent"][];
                            next_after: number | null;
                        };
                        "text/event-stream": string;
                    };
                };
                /** @description invalid_request: the query does not match the schema; invalid_last_event_id: Last-Event-ID is not an event id */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "invalid_request" | "invalid_last_event_id";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description events_gone: events after this id are no longer kept (details.oldest_kept): list the current state, then follow from the newest id */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over the credential's request budget, or its or its org's open streams (details.budget `streams`); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the org's webhook endpoints (never their secrets) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of endpoints */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["Webhook"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        /** Add a webhook endpoint; its signing secret is shown in this answer only */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CreateWebhook"];
                };
            };
            responses: {
                /** @description The endpoint, with its secret */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookWithSecret"];
                    };
                };
                /** @description invalid_request: the body does not match the schema; invalid_webhook_url: the url is not https or its host is a private, loopback, link-local or reserved address (details.reason) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description limit_reached: the org holds 20 endpoints already */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_keys_disabled: the installation has no LESSOR_MASTER_KEY to encrypt signing secrets with */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook endpoint */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The endpoint */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Webhook"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove an endpoint; what it had pending is not sent */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The removed endpoint */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Webhook"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change an endpoint's url or event types, or enable a disabled one */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["UpdateWebhook"];
                };
            };
            responses: {
                /** @description The endpoint */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Webhook"];
                    };
                };
                /** @description invalid_request: the body does not match the schema; invalid_webhook_url: the url is not https or its host is a private, loopback, link-local or reserved address (details.reason) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_keys_disabled: the installation has no LESSOR_MASTER_KEY to encrypt signing secrets with */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A new signing secret, shown in this answer only; the previous one also signs for 24 h */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The endpoint, with its new secret */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookWithSecret"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description provider_keys_disabled: the installation has no LESSOR_MASTER_KEY to encrypt signing secrets with */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An endpoint's deliveries, newest first: attempts, status, latency, next try (kept 7 days) */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    cursor?: string;
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A page of deliveries */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["WebhookDelivery"][];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{delivery_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a delivery again now, whatever became of it */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    delivery_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description The delivery, due now */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["WebhookDelivery"];
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues), or its body is not JSON; invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key, unknown_gpu: a field lessor reads is not one it accepts (details.field where one is named); invalid_path: the path is not valid percent-encoded UTF-8 */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description unauthenticated: no valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "unauthenticated";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description insufficient_scope: the credential's scope does not allow this; bootstrap_disabled: no bootstrap token is configured */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "insufficient_scope" | "bootstrap_disabled";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description not_found: no such object (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "not_found";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description webhook_disabled: enable the endpoint first (PATCH with enabled: true) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description payload_too_large: the body is over the limit (details.max_bytes) */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "payload_too_large";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
                /** @description rate_limited: over a request budget or a daily cap (details.budget); see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            error: {
                                /** @enum {string} */
                                code: "rate_limited";
                                /** @description for people; a 5xx says only to quote the request_id */
                                message: string;
                                /** @description what the code's description names; empty on a 5xx */
                                details: {
                                    [key: string]: unknown;
                                };
                            };
                            request_id: string;
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        CreatedOrg: {
            org: components["schemas"]["Org"];
            key: components["schemas"]["ApiKey"] & {
                /** @description shown once; store it now */
                secret: string;
            };
        };
        Org: {
            id: string;
            name: string;
            created_at: string;
        };
        ApiKey: {
            id: string;
            name: string;
            /** @description the first characters of the secret, to recognise it by */
            prefix: string;
            /** @enum {string} */
            scope: "read" | "write" | "admin";
            created_at: string;
            revoked_at: string | null;
        };
        Error: {
            error: {
                /** @example invalid_request */
                code: string;
                /** @description for people; a 5xx says only to quote the request_id */
                message: string;
                /** @description what the code's description names; empty on a 5xx */
                details: {
                    [key: string]: unknown;
                };
            };
            request_id: string;
        };
        CreateOrg: {
            name: string;
        };
        SimLedger: {
            /** @description milliseconds since the epoch */
            now: number;
            machines: components["schemas"]["SimLedgerMachine"][];
            volumes: components["schemas"]["SimLedgerVolume"][];
        };
        SimLedgerMachine: {
            id: string;
            label: string;
            offer_id: string;
            price_per_hour: number;
            disk_price_per_hour: number;
            /** @enum {string} */
            status: "PROVISIONING" | "STARTING" | "RUNNING" | "EXITED" | "TERMINATED" | "ERROR";
            /** @description milliseconds since the epoch */
            created_at: number;
            /** @description milliseconds since the epoch */
            destroyed_at: number | null;
            /** @description terminated by the cloud itself (vanish fault), not by a call */
            vanished: boolean;
            /** @description taken back by the cloud (a spot machine preempted: preempt_rate, or the operator's preempt), not stopped by a call */
            interrupted: boolean;
            /** @description from create to destroy, or to `now` while alive */
            alive_ms: number;
            intervals: {
                /** @enum {string} */
                status: "PROVISIONING" | "STARTING" | "RUNNING" | "EXITED" | "ERROR";
                /** @description milliseconds since the epoch */
                from: number;
                /** @description milliseconds since the epoch */
                to: number | null;
            }[];
            /** @description calls on the machine the sim refused with an injected fault, with the Retry-After it imposed */
            refusals: {
                /** @description milliseconds since the epoch */
                at: number;
                status: 429 | 503;
                retry_after_ms: number | null;
            }[];
            /** @description the volumes it mounts */
            volumes: string[];
        };
        SimLedgerVolume: {
            id: string;
            label: string;
            region: string;
            size_gb: number;
            /** @description milliseconds since the epoch */
            created_at: number;
            /** @description milliseconds since the epoch */
            deleted_at: number | null;
        };
        SimFaults: {
            api_error_rate: number;
            rate_limit_rate: number;
            ambiguous_create_rate: number;
            boot_failure_rate: number;
            vanish_rate: number;
            no_capacity_rate: number;
            /** @description a spot machine is taken back (EXITED, interrupted) vanish_min_ms..vanish_max_ms after it first runs */
            preempt_rate: number;
            provision_delay_ms: number;
            boot_delay_ms: number;
            retry_after_s: number;
            vanish_min_ms: number;
            vanish_max_ms: number;
            seed: number;
            billing_window_ms: number;
            billing_delay_ms: number;
            billing_markup: number;
            /** @description how often a sim machine's agent heartbeats */
            agent_heartbeat_ms: number;
            /** @description how fast a sim machine's model server produces tokens */
            model_tokens_per_s: number;
        };
        /** @description A simulated machine as the sim's API answers it */
        SimMachine: {
            id: string;
            label: string;
            /** @enum {string} */
            status: "PROVISIONING" | "STARTING" | "RUNNING" | "EXITED" | "TERMINATED" | "ERROR";
            offer_id: string;
            host_id: string;
            region: string;
            gpu_name: string;
            num_gpus: number;
            /** @description billed per hour from STARTING through RUNNING */
            price_per_hour: number;
            /** @description billed per hour while EXITED or ERROR (the disk is kept) */
            disk_price_per_hour: number;
            image: string | null;
            cmd: string | null;
            /** @description the TCP ports the machine serves; 8000 is its model server's */
            ports: number[];
            /** @description milliseconds since the epoch */
            created_at: number;
            /** @description when it entered `status` */
            status_since: number;
            /** @description milliseconds since the epoch */
            destroyed_at: number | null;
            /** @description taken back by the cloud (a spot machine preempted): EXITED for good, until destroyed */
            interrupted: boolean;
        };
        SimAgentSnapshot: {
            [key: string]: unknown;
        };
        SimAgentCommand: {
            [key: string]: unknown;
        };
        /** @description What the control plane consumed in this isolate since it started (counts only grow) */
        Meter: {
            /** @description HTTP requests and cron runs the Worker served, and calls a sim machine's agent made */
            worker_requests: number;
            /** @description calls to lessor's Durable Objects (each RPC call or fetch is one billed request) */
            do_requests: number;
            do_alarms: number;
            /** @description from each call to an object until its answer, plus each alarm's run */
            do_wall_ms: number;
            d1_queries: number;
            d1_rows_read: number;
            d1_rows_written: number;
            /** @description rows of the objects' own SQLite storage */
            do_rows_read: number;
            do_rows_written: number;
            /** @description calls to each provider's API, the sim's included */
            provider_calls: {
                [key: string]: number;
            };
        };
        AgentEnroll: {
            /** @description made and kept on the machine: the same agent may enroll again with it */
            nonce: string;
        };
        AgentHeartbeat: {
            /** @description on a machine that serves a model: its server's `GET /metrics` text (Prometheus); null: it could not be read */
            metrics: string | null;
        };
        AgentExit: {
            /** @description the exit code, 0 to 255; null when a signal ended the command */
            code: number | null;
            /** @description the signal that ended the command (`TERM`, `KILL`, ...); null when it exited */
            signal: string | null;
            at: string;
        };
        AgentExitReport: {
            code: number | null;
            signal: string | null;
        };
        AgentCommand: {
            id: string;
            /**
             * @description `exec` a command line, `signal` the command's process group, `collect` the outputs before a release (docs/artifacts.md)
             * @enum {string}
             */
            kind: "exec" | "signal" | "collect";
            /**
             * @description for `signal`: what to send to the command's process group
             * @enum {string|null}
             */
            signal: "TERM" | "KILL" | null;
            /** @description for `exec`: the command line, UTF-8, base64, for `sh -c` */
            cmd_base64: string | null;
        };
        AgentCommandResult: {
            exit_code: number | null;
            /** @default  */
            output?: string;
        };
        OutputsManifest: {
            files: {
                size: number;
                sha256: string;
                path: string;
            }[];
        };
        Artifact: {
            path: string;
            size: number;
            sha256: string;
            created_at: string;
            /** @description null until the lease's release */
            expires_at: string | null;
        };
        ArtifactUpload: {
            upload_id: string;
            path: string;
            size: number;
            sha256: string;
            part_size: number;
            /** @description how many parts the file goes up in */
            parts: number;
            /** @description the parts stored so far */
            stored: {
                part: number;
                size: number;
                sha256: string;
            }[];
        };
        ArtifactFile: {
            size: number;
            sha256: string;
        };
        IngressAnswer: {
            /**
             * @description accepted: the lease holding the machine reads it back now; ignored: see reason; duplicate: this event id was taken in within 24 h, nothing done
             * @enum {string}
             */
            result: "accepted" | "ignored" | "duplicate";
            /** @description the provider's id for the event; null when it gives none (RunPod) */
            event_id: string | null;
            /**
             * @description why it was ignored: the payload names no machine, or no live lease holds the one it names
             * @enum {string|null}
             */
            reason: "no_machine" | "unknown_machine" | null;
        };
        OrgSettings: {
            /** @description refuse a lease whose image is not pinned by digest (`@sha256:`) with 409 image_not_pinned (a lease that names none runs its provider's default image, which is pinned) */
            require_image_digest: boolean;
            /** @description how long into a session what a deployment's machine reports keeps it in use (docs/deployments.md "Activity"); default 1d */
            machine_activity_max: string;
            /** @description how long a released lease's artifacts are kept; default 30d */
            artifact_retention: string;
            /** @description how long a volume may go with no live lease mounting it before it is reported (or deleted: volume_idle_action); null, the default: never */
            volume_idle_ttl: string | null;
            /**
             * @description what becomes of a volume idle for volume_idle_ttl: `report` (the default: logged by the cron, and its idle_since shows it) or `delete` (as DELETE /v1/volumes/:id, never while a lease mounts it)
             * @enum {string}
             */
            volume_idle_action: "report" | "delete";
        };
        OrgSettingsUpdate: {
            require_image_digest?: boolean;
            machine_activity_max?: components["schemas"]["Duration"];
            artifact_retention?: components["schemas"]["Duration"];
            /**
             * @description null: never
             * @example 2h
             */
            volume_idle_ttl?: string;
            /** @enum {string} */
            volume_idle_action?: "report" | "delete";
        };
        /**
         * @description a duration: `90s`, `15m`, `2h`, `1d`; at most 366 days
         * @example 2h
         */
        Duration: string;
        CreateApiKey: {
            name: string;
            /** @enum {string} */
            scope: "read" | "write" | "admin";
        };
        Issuer: {
            id: string;
            jwks_url: string;
            iss: string;
            aud: string;
            created_at: string;
        };
        CreateIssuer: {
            /**
             * Format: uri
             * @description where the issuer publishes its signing keys (https, port 443, on a public address)
             */
            jwks_url: string;
            iss: string;
            /** @description the audience your IdP puts in lessor's tokens; (iss, aud) is held by one org, so name your org in it */
            aud: string;
        };
        Provider: {
            name: string;
            /** @description false: an installation-wide account every org rents from without a key (the sim) */
            needs_key: boolean;
            /** @description this org holds a key (or the provider needs none) */
            configured: boolean;
            /** @description its offers are quoted for this org: configured, and the last verification did not refuse the key */
            usable: boolean;
            capabilities: {
                stop: boolean;
                start: boolean;
                list_by_label: boolean;
                billing_records: boolean;
                webhooks: boolean;
                stop_ends_billing: boolean;
                spot: boolean;
                /** @description machines can be given an environment and a start command, so lessor's agent runs there; a lease with a cmd needs it */
                run_agent: boolean;
                /** @description sells volumes a machine mounts (docs/volumes.md) */
                volumes: boolean;
            };
            /** @description the settings stored with the key, none of them secret */
            options: {
                [key: string]: string;
            };
            option_fields: {
                name: string;
                required: boolean;
                description: string;
            }[];
            updated_at: string | null;
            /** @description when this org's account got its webhook ingress token; null: none */
            ingress_token_created_at: string | null;
            verification: {
                /**
                 * @description ok; refused (the provider said no); unreachable (no answer, try again); never
                 * @enum {string}
                 */
                status: "ok" | "refused" | "unreachable" | "never";
                at: string | null;
                error: string | null;
            };
            /** @description the provider's offer market as the catalog refresh last read it: the same for every org */
            market: {
                /** @description when lessor last read this provider's offers (with any org's key); null: never */
                refreshed_at: string | null;
                /** @description not read for more than 10 minutes: its offers are listed as stale and never quoted */
                stale: boolean;
                /** @description the last attempt to read it */
                attempted_at: string | null;
                /** @description why the last attempt failed (error kinds, and how many keys were tried); null when it worked */
                error: string | null;
            };
        };
        PutProvider: {
            /** @description the provider's API key; stored encrypted and never shown again */
            api_key: string;
            /** @description provider settings, e.g. Lambda's ssh_key_name */
            options?: {
                [key: string]: string;
            };
        };
        IngressToken: {
            provider: string;
            token: string;
            path: string;
            /** @description null without LESSOR_PUBLIC_URL */
            url: string | null;
            created_at: string;
        };
        GpuClass: {
            name: string;
            vram_gb: number;
            offers: number;
            cheapest_hourly_usd: number | null;
        };
        CatalogOffer: components["schemas"]["Offer"] & {
            /** @description when lessor last read this offer's provider market: the same for every offer of a provider */
            refreshed_at: string;
            /** @description the provider's market has not been read for more than 10 minutes: the offer may be gone, and no quote picks it */
            stale: boolean;
            /** @description the offer's host failed one of this org's leases: no quote or lease of the org picks it until `until`; null: it did not */
            bad_host: {
                /**
                 * @description how the host failed one of this org's leases
                 * @enum {string}
                 */
                reason: "boot_timeout" | "host_failed" | "provider_lost";
                /** @description when this org's quotes and leases may pick it again */
                until: string;
            } | null;
        };
        Offer: {
            id: string;
            provider: string;
            /** @description the provider's own id for the offer */
            provider_offer_id: string;
            /** @description GPU class, or `cpu` for a machine without GPUs */
            gpu: string;
            gpu_count: number;
            /** @description memory of one GPU */
            vram_gb: number;
            vcpu: number;
            memory_gb: number;
            disk_gb: number;
            region: string;
            host_id: string;
            hourly_usd: number;
            /** @enum {string} */
            availability: "high" | "medium" | "low";
            spot: boolean;
            /** @description how long the host stays rentable, seconds from when the offer was read; null: the provider ends no rental on its own */
            host_duration_s: number | null;
            /** @description the newest CUDA version the host is known to run; null: not stated */
            cuda_max: number | null;
            /** @description download billed, $ per GB; null: not billed */
            inet_down_usd_per_gb: number | null;
            /** @description upload billed, $ per GB; null: not billed */
            inet_up_usd_per_gb: number | null;
            /** @description what a stopped machine of this offer bills per hour for its kept disk; null: nothing (a stop ends billing, or no stop), or not stated */
            stopped_hourly_usd: number | null;
            /** @description the host's reliability score as its provider states it, 0 to 1; null: not stated */
            reliability: number | null;
            /** @description the host's measured download speed, Mbps; null: not stated */
            inet_down_mbps: number | null;
            /** @description the host's measured upload speed, Mbps; null: not stated */
            inet_up_mbps: number | null;
            /** @description how long a machine of this offer takes from create to running, seconds, as its provider states it; null: not stated (no real provider states one; the sim states its boot model's) */
            startup_s: number | null;
            /** @description a spot offer's on-demand price beside it, where its provider states one for the same machine; null: on-demand, or not stated (docs/providers.md "Spot") */
            on_demand_hourly_usd: number | null;
        };
        Model: {
            /** @description the Hugging Face repository, which is also the name the model is served under */
            id: string;
            /**
             * @description the weights' precision: `bf16`, or `awq-int4` (4-bit AWQ)
             * @enum {string}
             */
            variant: "bf16" | "awq-int4";
            /** @description parameters, in billions */
            params_b: number;
            /** @description the context length, in tokens, the floors are computed for: the model's own, at most 8192 */
            max_model_len: number;
            /** @description GPU memory the model needs in all: its weights and a cache for one full sequence, over the 90% of each GPU vLLM takes */
            min_vram_gb: number;
            /** @description machine memory the model needs */
            min_host_ram_gb: number;
            /** @description GPU specs (`class:count`) that hold it: for each GPU class, the fewest GPUs (1, 2, 4, 8) whose memory reaches `min_vram_gb` and over which the model splits; smallest total memory first */
            fits: string[];
            /** @description vCPUs of a CPU-only machine that serves it; null: it is not served on CPU (only models of at most 1.5B parameters are) */
            cpu_cores: number | null;
        };
        Quote: {
            id: string;
            created_at: string;
            /** @description at most five minutes after created_at */
            expires_at: string;
            /** @enum {string} */
            kind: "deployment" | "scratch" | "job";
            spec: components["schemas"]["Spec"];
            policy: {
                ttl: string | null;
                max_lifetime: string | null;
            };
            offer: components["schemas"]["Offer"];
            fallbacks: components["schemas"]["Offer"][];
            /** @description offers that met every constraint */
            candidates: number;
            hourly_usd: number;
            /** @description what the lease is estimated to cost per hour, by part */
            estimate: {
                /** @enum {string} */
                label: "estimate";
                /** @description compute and bandwidth, per hour */
                hourly_usd: number;
                parts: {
                    /** @description the offer's price, per hour */
                    compute_usd: number;
                    /** @description the bandwidth allowance at the offer's $/GB, per hour; 0 where not billed */
                    bandwidth_usd: number;
                };
                /** @description the assumed GB moved per hour, each way */
                bandwidth_gb_per_hour: {
                    down: number;
                    up: number;
                };
            };
            /** @description the most the lease may cost, what its budget admission reserves: the sum of ceiling_parts; null when its hard caps leave it uncapped, or its stopped disk bills with no stopped_ttl */
            ceiling_usd: number | null;
            /** @description null when the hard caps leave the lease uncapped */
            ceiling_parts: {
                /** @description the machine's rate until the hard cap */
                compute_usd: number;
                /** @description the egress estimate: the bandwidth allowance at the offer's per-GB prices until the hard cap (0 where the provider bills no bandwidth) */
                bandwidth_usd: number;
                /** @description what a release at the ttl may bill past it while it waits for the command's outputs: the rate (compute and bandwidth) for up to policy.outputs_wait, but not past max_lifetime; 0 for a deployment, or when max_lifetime ends the lease first (its release never waits) */
                outputs_wait_usd: number;
                /** @description what the kept disk may bill while stopped: the offer's stopped_hourly_usd for up to stopped_ttl (0 where a stop ends billing); null: no stopped_ttl ends it */
                stopped_disk_usd: number | null;
                /** @description what replacing failed hosts may add (up to host_attempts - 1 of them): under a ttl, each one's rounding up to its provider's billing increment; under max_lifetime, which a replacement begins afresh, each failed boot's boot_timeout and a minute to destroy it, rounded up to the increment */
                retries_usd: number;
                /** @description the 5% price rise a lease made from this quote may rent at (more is quote_drift), on the compute and retries */
                drift_usd: number;
            } | null;
            /** @enum {string|null} */
            ceiling_basis: "ttl" | "max_lifetime" | null;
        };
        Spec: {
            /** @description `class:count` (`l40s:2`), a lane pin `class-provider:count` (`l40s-sim:1`), or a bare class (count 1) */
            gpu?: string;
            /** @description a CPU-only machine with at least this many vCPUs */
            cpu?: number;
            /** @description memory of each GPU, GB */
            min_vram_gb?: number;
            /** @description at least this many GPUs */
            min_gpus?: number;
            /** @description at least this many vCPUs */
            min_cpu?: number;
            /** @description machine memory, GB */
            min_memory_gb?: number;
            /** @description disk, GB */
            min_disk_gb?: number;
            /** @description only these regions */
            regions?: string[];
            /** @description only these providers */
            providers?: string[];
            /** @description never these providers */
            exclude_providers?: string[];
            /** @description never these hosts */
            exclude_hosts?: string[];
            /** @description price ceiling per hour */
            max_hourly_usd?: number;
            /** @description true: spot (interruptible) offers only; false or absent: on-demand only */
            spot?: boolean;
            /** @description the CUDA version the image needs (`12.8`): only hosts known to run it; an offer that does not state its CUDA never passes */
            min_cuda?: number;
            /** @description the least reliability score (0 to 1) the host's provider states for it; an offer that does not state one never passes */
            min_reliability?: number;
            /** @description the host's measured download speed, Mbps; an offer that does not state it never passes */
            min_inet_down_mbps?: number;
            /** @description the host's measured upload speed, Mbps; an offer that does not state it never passes */
            min_inet_up_mbps?: number;
            /** @description the longest time from create to running, seconds, the offer's provider states for it; an offer that does not state one never passes (no real provider states one; the sim does) */
            max_startup_s?: number;
        };
        QuoteRequest: {
            spec: components["schemas"]["Spec"];
            /**
             * @default scratch
             * @enum {string}
             */
            kind?: "deployment" | "scratch" | "job";
            policy?: components["schemas"]["PolicyInput"];
            /** @description volumes to mount; the lease is placed where they live (docs/volumes.md) */
            volumes?: components["schemas"]["VolumeMount"][];
        };
        PolicyInput: {
            ttl?: components["schemas"]["Duration"] | null;
            idle_timeout?: components["schemas"]["Duration"] | null;
            max_lifetime?: components["schemas"]["Duration"] | null;
            stopped_ttl?: components["schemas"]["Duration"] | null;
            heartbeat_grace?: components["schemas"]["Duration"];
            boot_timeout?: components["schemas"]["Duration"];
            startup_timeout?: components["schemas"]["Duration"] | null;
            host_attempts?: number;
            max_session_usd?: number | null;
            max_runtime?: components["schemas"]["Duration"] | null;
            kill_grace?: components["schemas"]["Duration"];
            max_inactivity?: components["schemas"]["Duration"] | null;
            /** @enum {string} */
            inactivity_action?: "diagnose" | "terminate";
            /** @enum {string} */
            on_exit?: "release" | "stop" | "keep";
            outputs_wait?: components["schemas"]["Duration"];
            recovery?: components["schemas"]["RecoveryInput"] | null;
        };
        /** @description a job's recovery from losing its machine (docs/leases.md "Recovery"); jobs only */
        RecoveryInput: {
            /** @description the losses that restart the command on a new machine */
            on: ("preempted" | "host_failed" | "provider_lost")[];
            /** @description restarts allowed (default 3); one more loss releases the lease with its reason */
            max_restarts?: number;
            backoff?: components["schemas"]["Duration"] & unknown;
            /** @description a spot job may rent on-demand offers once its spot offers are used up (default false) */
            fallback_on_demand?: boolean;
        };
        VolumeMount: {
            name: string;
            path: string;
        };
        /** @description A lease: state, machine, offer, policy, deadlines and its estimate */
        Lease: {
            id: string;
            /** @description unique among the org's live leases; null: none */
            name: string | null;
            /** @enum {string} */
            kind: "deployment" | "scratch" | "job";
            /** @enum {string} */
            state: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released";
            /** @description ISO 8601, UTC */
            state_since: string | null;
            provider: string;
            machine: {
                id: string;
                label: string | null;
                /** @enum {string|null} */
                status: "provisioning" | "starting" | "running" | "stopped" | "terminated" | "error" | null;
                /** @description ISO 8601, UTC */
                observed_at: string | null;
            } | null;
            offer: components["schemas"]["Offer"] | null;
            fallbacks: components["schemas"]["Offer"][];
            excluded_hosts: string[];
            hourly_usd: number;
            policy: components["schemas"]["Policy"];
            quote_id: string | null;
            reconcile_required: boolean;
            /** @description ISO 8601, UTC */
            created_at: string | null;
            /** @description ISO 8601, UTC */
            session_started_at: string | null;
            /** @description ISO 8601, UTC */
            ready_at: string | null;
            /** @description ISO 8601, UTC */
            ttl_expires_at: string | null;
            /** @description ISO 8601, UTC */
            last_activity_at: string | null;
            /** @description ISO 8601, UTC */
            lock_until: string | null;
            /** @description ISO 8601, UTC */
            stopped_at: string | null;
            /** @enum {string|null} */
            release_reason: "user_end" | "user_stop" | "user_start" | "ttl_expired" | "idle_timeout" | "max_lifetime" | "budget_exceeded" | "stopped_ttl" | "boot_timeout" | "startup_timeout" | "host_failed" | "no_capacity" | "provider_refused" | "provider_lost" | "provider_stopped" | "stop_failed" | "orphan" | "preempted" | "unexpected_start" | "max_runtime" | "inactivity" | "job_exited" | "model_server_failed" | "endpoint_exposed" | "quota_exceeded" | "over_budget" | null;
            /** @description ISO 8601, UTC */
            released_at: string | null;
            /** @description the configuration check's warnings at create (`POST /v1/leases/validate` answers the same) */
            warnings: components["schemas"]["ConfigWarning"][];
            /** @description the names of the command's environment variables; values are never shown */
            env: string[];
            /** @description the volumes it mounts, and where (absent in a list row stored before volumes) */
            volumes?: {
                name: string;
                path: string;
            }[];
            /** @description how the command ended, as the machine's agent reported it; null while it runs (or before it starts); after restarts, the last attempt's */
            exit: {
                code: number | null;
                signal: string | null;
                /** @description ISO 8601, UTC */
                at: string;
            } | null;
            /** @description how many times the job was restarted on a new machine after a loss (policy.recovery); absent in a list row stored before recovery */
            restarts?: number;
            billing: components["schemas"]["LeaseBilling"];
        };
        Policy: {
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            ttl: string | null;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            idle_timeout: string | null;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            max_lifetime: string | null;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            stopped_ttl: string | null;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            heartbeat_grace: string;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            boot_timeout: string;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            startup_timeout: string | null;
            host_attempts: number;
            max_session_usd: number | null;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            max_runtime: string | null;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            kill_grace: string;
            /** @description a duration: `90s`, `15m`, `2h`, `1d` */
            max_inactivity: string | null;
            /** @enum {string} */
            inactivity_action: "diagnose" | "terminate";
            /** @enum {string} */
            on_exit: "release" | "stop" | "keep";
            /** @description how long a release waits for the command's outputs before it destroys the machine (docs/artifacts.md) */
            outputs_wait: string;
            /** @description a job's recovery from losing its machine (docs/leases.md "Recovery"); null: none (absent in a list row stored before recovery) */
            recovery?: {
                on: ("preempted" | "host_failed" | "provider_lost")[];
                max_restarts: number;
                /** @description a duration: `90s`, `15m`, `2h`, `1d` */
                backoff: string;
                fallback_on_demand: boolean;
            } | null;
        };
        ConfigWarning: {
            /** @enum {string} */
            code: "stopped_disk_unbounded" | "idle_timeout_unreachable" | "mutable_image_tag" | "ttl_shorter_than_boot";
            /** @description the request field it is about, as a path: `policy.stopped_ttl`, `image` */
            field: string;
            message: string;
        };
        LeaseBilling: {
            /** @enum {string} */
            status: "accruing" | "awaiting_windows" | "settled" | "disputed" | "none";
            estimate: {
                /** @enum {string} */
                label: "estimate";
                amount_usd: number;
                running_usd: number;
                stopped_usd: number;
                running_seconds: number;
                stopped_seconds: number;
                hourly_usd: number;
                stopped_hourly_usd: number;
                /** @description ISO 8601, UTC */
                as_of: string;
            };
            /** @description from the provider's billing records once the receipt is written */
            actual_usd: number | null;
            receipt_id: string | null;
        };
        /** @description a lease takes exactly one of `spec` and `quote_id` */
        CreateLease: components["schemas"]["CreateLeaseForSpec"] | components["schemas"]["CreateLeaseForQuote"];
        CreateLeaseForSpec: {
            /** @enum {string} */
            kind: "deployment" | "scratch" | "job";
            policy?: components["schemas"]["PolicyInput"];
            /** @description container image; pin it by digest (`@sha256:`) */
            image?: string;
            /** @description the command the machine's agent runs; required for a job */
            cmd?: string;
            env?: components["schemas"]["LeaseEnv"];
            /**
             * @description unique among the org's live leases; a released lease frees its name
             * @example train-7b
             */
            name?: string;
            /** @description job and scratch: a bundle of POST /v1/uploads (`upl_...`), unpacked where the command runs */
            workdir?: string;
            /** @description volumes to mount; the lease is placed where they live (docs/volumes.md) */
            volumes?: components["schemas"]["VolumeMount"][];
            spec: components["schemas"]["Spec"];
        };
        /** @description the command's environment; values may be secrets and are never shown (answers list the names) */
        LeaseEnv: {
            [key: string]: string;
        };
        CreateLeaseForQuote: {
            /** @enum {string} */
            kind: "deployment" | "scratch" | "job";
            policy?: components["schemas"]["PolicyInput"];
            /** @description container image; pin it by digest (`@sha256:`) */
            image?: string;
            /** @description the command the machine's agent runs; required for a job */
            cmd?: string;
            env?: components["schemas"]["LeaseEnv"];
            /**
             * @description unique among the org's live leases; a released lease frees its name
             * @example train-7b
             */
            name?: string;
            /** @description job and scratch: a bundle of POST /v1/uploads (`upl_...`), unpacked where the command runs */
            workdir?: string;
            /** @description volumes to mount; the lease is placed where they live (docs/volumes.md) */
            volumes?: components["schemas"]["VolumeMount"][];
            quote_id: string;
        };
        /** @description A lease: state, machine, offer, policy, deadlines and its estimate */
        GuardedLease: components["schemas"]["Lease"] & {
            guard: {
                /**
                 * @description what the policy does next: due now when `due`, else at `at`; wait is never shown, only what it waits for
                 * @enum {string}
                 */
                action: "none" | "provision" | "poll" | "mark_ready" | "mark_stopped" | "stop" | "start" | "replace_host" | "recover" | "mark_exited" | "signal" | "diagnose" | "report_silent" | "reserve" | "release";
                /** @enum {string|null} */
                reason: "user_end" | "user_stop" | "user_start" | "ttl_expired" | "idle_timeout" | "max_lifetime" | "budget_exceeded" | "stopped_ttl" | "boot_timeout" | "startup_timeout" | "host_failed" | "no_capacity" | "provider_refused" | "provider_lost" | "provider_stopped" | "stop_failed" | "orphan" | "preempted" | "unexpected_start" | "max_runtime" | "inactivity" | "job_exited" | "model_server_failed" | "endpoint_exposed" | "quota_exceeded" | "over_budget" | null;
                /** @description ISO 8601, UTC */
                at: string | null;
                due: boolean;
                /** @description the last heartbeat of the machine's agent when it has been silent for 90 s or more; null while it beats */
                agent_silent_since: string | null;
                /** @description a deployment's: whether lessor sees its use beyond the gateway (docs/deployments.md "Activity"); null for a lease that serves no model or is not ready */
                activity: {
                    /** @description the agent read the model server's metrics in the last 90 s, and no read failed since */
                    observable: boolean;
                    /** @description when it last read them; null: never */
                    metrics_read_at: string | null;
                    /** @description the last heartbeat whose metrics showed requests */
                    machine_activity_at: string | null;
                    /** @description what the machine reports counts as use until then (the org's machine_activity_max) */
                    machine_activity_until: string;
                    /**
                     * @description off only with no idle_timeout
                     * @enum {string}
                     */
                    idle_stop: "on" | "off";
                    /** @description the same, in words */
                    note: string;
                } | null;
            };
        };
        /** @description One transition of a lease, with its reason and the detail its type carries */
        LeaseEvent: {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "created";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                offer: string;
                /** @enum {string} */
                kind: "deployment" | "scratch" | "job";
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "provisioning";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                offer: string;
                provider: string;
                label: string;
                /** @description what the step reserved against the org's caps, where it reserved */
                reserved_usd?: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "budget_reserved";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                offer: string;
                provider: string;
                /** @description the machine's price, where above what the lease held */
                hourly_usd?: number;
                /** @description what the step reserved against the org's caps, where it reserved */
                reserved_usd?: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "machine_created";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                machine_id: string;
                label: string;
                host: string;
                region: string;
                provider: string;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "machine_adopted";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                machine_id: string;
                label: string | null;
                extra_destroyed: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "create_ambiguous";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                label: string;
                error: string;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "machine_destroyed";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                machine_id: string | null;
                host: string;
                /** @description the region the machine landed in, outside the lease's placement */
                misplaced_in?: string;
                /** @description the regions the placement allows */
                allowed?: string[];
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "host_excluded";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                host: string;
                provider: string;
                next_offer: string;
                next_provider: string;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "attempt_ended";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description the attempt that ended, 1 the first (docs/leases.md "Recovery") */
                attempt: number;
                machine_id: string | null;
                provider: string;
                host: string | null;
                /** @description how long its machine ran for the lease, from its create to the loss acted on */
                machine_ms: number;
                /** @description the restart it begins (LESSOR_RESTART of the next machine) */
                restart: number;
                next_offer: string;
                next_provider: string;
                /** @description when the next machine is rented (after the recovery's backoff) */
                next_at: string;
                /** @description the lost machine was destroyed (false: the provider already no longer had it) */
                destroyed: boolean;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "release_requested";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description hosts tried, when none is left to try */
                attempts?: number;
                failed_host?: string;
                /** @description provider_refused: the kind of refusal */
                error?: string;
                /** @description provider_refused: what the provider said */
                message?: string;
                /** @description budget_exceeded: the offer the lease would have rented */
                offer?: string;
                provider?: string;
                hourly_usd?: number;
                /**
                 * @description budget_exceeded: the cap it would pass
                 * @enum {string}
                 */
                cap?: "monthly" | "concurrent_hourly";
                month?: string;
                limit_usd?: number | null;
                committed_usd?: number | null;
                requested_usd?: number | null;
                /** @description model_server_failed: how the model server exited */
                exit_code?: number | null;
                signal?: string | null;
                /** @description model_server_failed: its log's last 30 lines, at most 8 KiB */
                log_tail?: string;
                /** @description model_server_failed: the log held more */
                log_tail_cut?: boolean;
                /** @description preempted: the deployment lease that displaced it under the org's GPU quota */
                by?: string;
                /** @description quota_exceeded: the cap a fallback host's GPUs would pass */
                quota?: string;
                limit?: number;
                held?: number;
                requested?: number;
                /** @description a job out of offers to restart on: the restarts it made */
                restarts?: number;
                offers_left?: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "stop_requested";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                machine_id?: string | null;
                machine_status?: string | null;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "start_requested";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description what the step reserved against the org's caps, where it reserved */
                reserved_usd?: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "extended";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                by_ms: number;
                /** @description ISO 8601, UTC */
                ttl_expires_at: string;
                /** @description what the step reserved against the org's caps, where it reserved */
                reserved_usd?: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "locked";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description ISO 8601, UTC */
                until: string;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "released";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description the machines destroyed by the release */
                destroyed: string[];
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "billing_settled";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                receipt_id: string;
                /** @enum {string} */
                status: "settled" | "disputed";
                actual_usd: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "run_failed" | "observe_failed" | "provision_failed" | "poll_failed" | "mark_ready_failed" | "mark_stopped_failed" | "stop_failed" | "start_failed" | "replace_host_failed" | "recover_failed" | "mark_exited_failed" | "signal_failed" | "diagnose_failed" | "report_silent_failed" | "reserve_failed" | "release_failed";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                error: string;
                retry_in_ms: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "unlocked" | "heartbeat" | "stopped" | "starting" | "stop_issued";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: Record<string, never>;
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "ready";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description a job back after a loss: which restart */
                restart?: number;
                /** @description from the loss noticed to this machine running */
                loss_to_running_ms?: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "exited";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                code: number | null;
                signal: string | null;
                /** @description ISO 8601, UTC */
                at: string;
                /** @description a job that recovers: the attempt this exit ends (the lease's exit is its last attempt's) */
                attempt?: number;
                /** @description a job that recovers: how long this attempt's machine ran until the exit */
                machine_ms?: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "killed_by_runtime_cap" | "killed_by_inactivity";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @enum {string} */
                signal: "TERM" | "KILL";
                command_id: string;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "stalled";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description ISO 8601, UTC */
                silent_since: string;
                silent_ms: number;
                diagnostics_id: string | null;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "diagnostics";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                command_id: string;
                exit_code: number | null;
                /** @description process list and nvidia-smi, at most 8 KiB */
                output: string;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "agent_silent";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description ISO 8601, UTC */
                last_heartbeat_at: string;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "outputs_requested";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description the `collect` queued for the agent */
                command_id: string;
                /** @description the bound: the release goes on then at the latest */
                until: string;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "outputs_uploaded";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                files: number;
                bytes: number;
            };
        } | {
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "outputs_incomplete";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description paths not stored, the first 100 (at most 8 KiB) */
                missing: string[];
                missing_count: number;
                files: number;
                bytes: number;
                /** @description false: the release waited for the outputs and no manifest came */
                manifest?: boolean;
            };
        };
        Exec: {
            /** @example cmd_01jd0000000000000000000000 */
            exec_id: string;
            /**
             * @description pending: not yet taken by the agent; running: taken, no result yet; done: exit code 0; failed: any other result
             * @enum {string}
             */
            state: "pending" | "running" | "done" | "failed";
            /** @description null until there is a result, or when the agent could not run it */
            exit_code: number | null;
            /** @description stdout and stderr, at most 1048576 bytes; null until there is a result */
            output: string | null;
            /** @description the output was cut: it keeps the last bytes, after a marker line saying how many were cut */
            output_truncated: boolean;
            created_at: string;
        };
        ExecRequest: {
            /** @description a command line for `sh -c`, at most 8192 bytes */
            cmd: string;
            timeout?: components["schemas"]["Duration"] & unknown;
        };
        Upload: {
            id: string;
            size: number;
            sha256: string;
            created_at: string;
            expires_at: string;
        };
        Deployment: {
            name: string;
            /** @example dp_01jd0000000000000000000000 */
            id: string;
            /**
             * @description its lease's state: `ready` once the model answers; `pending` while the lease is being made
             * @enum {string}
             */
            state: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released";
            lease_id: string;
            /** @description `{LESSOR_PUBLIC_URL}/v1/gateway/{id}/v1`, for any OpenAI client; null when the installation has no public URL */
            base_url: string | null;
            /** @description the deployment's own key for the gateway (43 URL-safe characters); null unless the credential has the `write` scope */
            api_key: string | null;
            model: string;
            /** @description what its machine bills an hour; null while its lease is being made */
            hourly_usd: number | null;
            /** @description its replicas' settings, every field filled in */
            replicas: {
                min: number;
                max: number;
                target_inflight: number;
                idle_timeout: string;
                scale_down_delay: string;
                drain_timeout: string;
                /** @enum {string} */
                sleep: "stop" | "release";
            };
            scaler: components["schemas"]["DeploymentScaler"];
        };
        /** @description its replicas as they are and what the scaler will do next and why; null until its object has heard of it (a PUT or a request) */
        DeploymentScaler: {
            replicas: {
                lease_id: string;
                /** @description the deployment's own lease (`lease_id`): asleep rather than gone at zero replicas */
                primary: boolean;
                /**
                 * @description `ready`: sent requests; `starting` and `draining` (finishing its requests before it is released) are sent none
                 * @enum {string}
                 */
                state: "starting" | "ready" | "stopped" | "gone" | "draining";
                /** @enum {string|null} */
                lease_state: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
                in_flight: number;
                /** @description 5xx answers or failed sends in a row; at 5 it is replaced */
                failures: number;
            }[];
            in_flight: number;
            /** @description requests held in the gateway for want of a ready replica */
            queued: number;
            /** @description the replicas the load asks for now */
            desired: number;
            next: {
                /** @enum {string} */
                action: "add" | "drain" | "release" | "wake" | "sleep" | "replace" | "forget" | "none";
                reason: string;
                /** @description when, if later than now */
                at: string | null;
            };
            /** @description the last scale events, newest first, each with its reason */
            events: {
                at: string;
                action: string;
                lease_id: string | null;
                reason: string;
                detail: string;
            }[];
        } | null;
        DeploymentConfig: {
            /**
             * @description a model of the catalog (GET /v1/catalog/models), in any letter case
             * @example Qwen/Qwen2.5-0.5B-Instruct
             */
            model: string;
            spec?: components["schemas"]["Spec"];
            policy?: components["schemas"]["PolicyInput"];
            /** @description container image holding the model server (vLLM); pin it by digest (`@sha256:`) */
            image?: string;
            /** @description more arguments for the model server, each one word (`--max-model-len`, `8192`); passed quoted, never read by a shell */
            engine_args?: string[];
            /** @description volumes to mount; the lease is placed where they live (docs/volumes.md) */
            volumes?: components["schemas"]["VolumeMount"][];
            replicas?: components["schemas"]["ReplicasInput"];
        };
        /** @description how many leases serve it and when the scaler adds or takes one away (docs/deployments.md "Replicas"); default {min: 1, max: 1} */
        ReplicasInput: {
            /** @description replicas kept while the deployment is in use (0: it scales to zero after idle_timeout); default 1 */
            min?: number;
            /** @description the most replicas (at most 16); default 1, or min when min is more */
            max?: number;
            /** @description requests in flight per replica the scaler aims at; default 8 */
            target_inflight?: number;
            idle_timeout?: components["schemas"]["Duration"] & unknown;
            scale_down_delay?: components["schemas"]["Duration"] & unknown;
            drain_timeout?: components["schemas"]["Duration"] & unknown;
            /**
             * @description at zero replicas the last one is `stop`ped (default) or `release`d
             * @enum {string}
             */
            sleep?: "stop" | "release";
        };
        Volume: {
            id: string;
            name: string;
            provider: string;
            region: string;
            size_gb: number;
            /** @enum {string} */
            state: "creating" | "ready" | "deleting";
            /** @description null until the provider answered the create */
            usd_per_gb_month: number | null;
            /** @description an estimate: size_gb times usd_per_gb_month */
            monthly_usd: number | null;
            /** @description the leases not released that mount it */
            mounted_by: string[];
            /** @description null while a lease not released mounts it; else since when no lease has: the last release of one that mounted it, or its creation (the org's volume_idle_ttl counts from here) */
            idle_since: string | null;
            created_at: string;
        };
        CreateVolume: {
            name: string;
            size_gb: number;
            /** @description default: the provider's region with the most offers */
            region?: string;
            /** @description default: the first the org may use that sells volumes */
            provider?: string;
        };
        Machines: {
            data: components["schemas"]["Machine"][];
            providers: components["schemas"]["MachineProvider"][];
        };
        Machine: {
            provider: string;
            /** @description the provider account: '' for the installation's own (the sim), else the org key's fingerprint (`key:...`) */
            account: string;
            /** @description the provider's id for the machine */
            id: string;
            label: string;
            /** @enum {string} */
            status: "provisioning" | "starting" | "running" | "stopped" | "terminated" | "error";
            /** @description the lease its label names */
            lease_id: string;
            /** @description no live lease owns it: the reconciler stops and then destroys it */
            orphan: boolean;
            /** @description an orphan's: when the reconciler stops it (null: stopped already, or the provider cannot stop) */
            orphan_stop_at: string | null;
            /** @description an orphan's: when the reconciler destroys it (its runs are a minute apart) */
            orphan_destroy_at: string | null;
            /** @description what it bills per hour while running, as the provider reports it (null: not reported) */
            hourly_usd: number | null;
            /** @description what it bills per hour while stopped (disk) */
            stopped_hourly_usd: number | null;
            region: string;
            created_at: string | null;
        };
        /** @description how listing one provider account went; a provider that fails to list is reported here, never as a failed request */
        MachineProvider: {
            provider: string;
            account: string;
            /** @enum {boolean} */
            ok: true;
            machines: number;
        } | {
            provider: string;
            account: string | null;
            /** @enum {boolean} */
            ok: false;
            error: string;
        };
        Budget: {
            /** @description cap on what leases admitted this month (UTC) may cost; null: none */
            monthly_usd: number | null;
            /** @description cap on the summed hourly rate of the org's leases not yet released; null: none */
            concurrent_hourly_usd: number | null;
            /** @description the month the monthly cap counts, YYYY-MM (UTC) */
            month: string;
            /** @description this month's leases: receipts, final estimates, and the cost ceilings of live ones */
            month_committed_usd: number;
            /** @description the hourly rate of every lease not yet released */
            live_hourly_usd: number;
            updated_at: string | null;
        };
        PutBudget: {
            monthly_usd?: number | null;
            concurrent_hourly_usd?: number | null;
            readonly month?: string;
            readonly month_committed_usd?: number;
            readonly live_hourly_usd?: number;
            readonly updated_at?: string | null;
        };
        GpuQuota: {
            /** @description the most GPUs the org's live leases may hold at once; null: no quota */
            gpus: number | null;
            /** @description a kind's own cap within `gpus`; null: only `gpus` caps it */
            per_kind: {
                deployment: number | null;
                job: number | null;
                scratch: number | null;
            };
            /** @description what the org's live leases hold now, by kind */
            held: {
                deployment: number;
                job: number;
                scratch: number;
                total: number;
            };
            updated_at: string | null;
        };
        PutGpuQuota: {
            /** @description null removes the quota (and every kind's cap) */
            gpus: number | null;
            /** @description a kind left out or null has no cap of its own */
            per_kind?: {
                deployment?: number | null;
                job?: number | null;
                scratch?: number | null;
            };
            readonly held?: {
                [key: string]: number;
            };
            readonly updated_at?: string | null;
        };
        Usage: {
            from: string;
            to: string;
            /** @enum {string} */
            group_by: "provider" | "gpu" | "lease" | "day";
            data: components["schemas"]["UsageRow"][];
            totals: {
                estimate_usd: number;
                actual_usd: number;
                disputed_usd: number;
                leases: number;
                volumes: number;
                /** @description bundles and artifacts kept over the range, in R2's unit (docs/artifacts.md) */
                storage_gb_month: number;
            };
        };
        UsageRow: {
            /** @description the provider, GPU class (`volume` for volumes' storage), lease id (or a volume's id) or day (YYYY-MM-DD) of the group */
            key: string;
            /** @description lessor's estimate: rate times billable time, never a bill */
            estimate_usd: number;
            /** @description the providers' own billing records fetched so far */
            actual_usd: number;
            /** @description the part of actual_usd on leases whose receipt is disputed */
            disputed_usd: number;
            leases: number;
            /** @description volumes whose storage the group counts */
            volumes: number;
            /** @description grouped by lease: the lease's (or volume's) provider */
            provider?: string;
            /** @description grouped by lease: the GPU class it ran on (`volume` for a volume) */
            gpu?: string | null;
            /** @description grouped by lease: accruing, awaiting_windows, settled, disputed or none */
            billing_status?: string;
        };
        /** @description A lease's actual cost (or a volume's storage for one period) from the provider's records for closed windows, its parts and windows, and the estimate beside it */
        Receipt: {
            id: string;
            /** @description the lease it bills; null for a volume's receipt */
            lease_id: string | null;
            /** @description the volume whose storage it bills, for one period (billed_from to released_at); null for a lease's */
            volume_id: string | null;
            provider: string;
            /** @description the GPU class the lease ran on; null for a volume's */
            gpu: string | null;
            /**
             * @description disputed: the provider's records differ from the estimate by more than the tolerance
             * @enum {string}
             */
            status: "settled" | "disputed";
            /** @description the sum of the provider's billing records */
            actual_usd: number;
            /** @description lessor's estimate for the same time; null for a volume whose provider states no price */
            estimate_usd: number | null;
            /** @description actual_usd minus estimate_usd; null where there is no estimate */
            difference_usd: number | null;
            /** @description actual_usd by part (compute, disk, bandwidth, ...), as the provider's records name them */
            components: {
                [key: string]: number;
            };
            window_count: number;
            /** @description every billing record the receipt sums; in the answer for one receipt only, never in lists */
            windows?: {
                record_id: string;
                machine_id: string;
                /** @description ISO 8601, UTC */
                window_start: string;
                /** @description ISO 8601, UTC */
                window_end: string;
                amount_usd: number;
            }[];
            /** @description a lease's first billed moment; the start of a volume's period */
            billed_from: string | null;
            /** @description a lease's release; the end of a volume's period */
            released_at: string;
            /** @description ISO 8601, UTC */
            created_at: string;
        };
        /** @description A lease's event (as LeaseEvent, with the org log's id and the lease's id), or the org's own `webhook_disabled` */
        OrgEvent: {
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            lease_id: null;
            seq: null;
            at: string;
            /** @enum {string} */
            type: "webhook_disabled";
            from: null;
            to: null;
            reason: string;
            detail: {
                webhook_id: string;
                url: string;
                reason: string;
                /** @description failed attempts in a row, this one included */
                consecutive_failures?: number;
            };
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "created";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                offer: string;
                /** @enum {string} */
                kind: "deployment" | "scratch" | "job";
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "provisioning";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                offer: string;
                provider: string;
                label: string;
                /** @description what the step reserved against the org's caps, where it reserved */
                reserved_usd?: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "budget_reserved";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                offer: string;
                provider: string;
                /** @description the machine's price, where above what the lease held */
                hourly_usd?: number;
                /** @description what the step reserved against the org's caps, where it reserved */
                reserved_usd?: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "machine_created";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                machine_id: string;
                label: string;
                host: string;
                region: string;
                provider: string;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "machine_adopted";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                machine_id: string;
                label: string | null;
                extra_destroyed: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "create_ambiguous";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                label: string;
                error: string;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "machine_destroyed";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                machine_id: string | null;
                host: string;
                /** @description the region the machine landed in, outside the lease's placement */
                misplaced_in?: string;
                /** @description the regions the placement allows */
                allowed?: string[];
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "host_excluded";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                host: string;
                provider: string;
                next_offer: string;
                next_provider: string;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "attempt_ended";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description the attempt that ended, 1 the first (docs/leases.md "Recovery") */
                attempt: number;
                machine_id: string | null;
                provider: string;
                host: string | null;
                /** @description how long its machine ran for the lease, from its create to the loss acted on */
                machine_ms: number;
                /** @description the restart it begins (LESSOR_RESTART of the next machine) */
                restart: number;
                next_offer: string;
                next_provider: string;
                /** @description when the next machine is rented (after the recovery's backoff) */
                next_at: string;
                /** @description the lost machine was destroyed (false: the provider already no longer had it) */
                destroyed: boolean;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "release_requested";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description hosts tried, when none is left to try */
                attempts?: number;
                failed_host?: string;
                /** @description provider_refused: the kind of refusal */
                error?: string;
                /** @description provider_refused: what the provider said */
                message?: string;
                /** @description budget_exceeded: the offer the lease would have rented */
                offer?: string;
                provider?: string;
                hourly_usd?: number;
                /**
                 * @description budget_exceeded: the cap it would pass
                 * @enum {string}
                 */
                cap?: "monthly" | "concurrent_hourly";
                month?: string;
                limit_usd?: number | null;
                committed_usd?: number | null;
                requested_usd?: number | null;
                /** @description model_server_failed: how the model server exited */
                exit_code?: number | null;
                signal?: string | null;
                /** @description model_server_failed: its log's last 30 lines, at most 8 KiB */
                log_tail?: string;
                /** @description model_server_failed: the log held more */
                log_tail_cut?: boolean;
                /** @description preempted: the deployment lease that displaced it under the org's GPU quota */
                by?: string;
                /** @description quota_exceeded: the cap a fallback host's GPUs would pass */
                quota?: string;
                limit?: number;
                held?: number;
                requested?: number;
                /** @description a job out of offers to restart on: the restarts it made */
                restarts?: number;
                offers_left?: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "stop_requested";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                machine_id?: string | null;
                machine_status?: string | null;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "start_requested";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description what the step reserved against the org's caps, where it reserved */
                reserved_usd?: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "extended";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                by_ms: number;
                /** @description ISO 8601, UTC */
                ttl_expires_at: string;
                /** @description what the step reserved against the org's caps, where it reserved */
                reserved_usd?: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "locked";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description ISO 8601, UTC */
                until: string;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "released";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description the machines destroyed by the release */
                destroyed: string[];
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "billing_settled";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                receipt_id: string;
                /** @enum {string} */
                status: "settled" | "disputed";
                actual_usd: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "run_failed" | "observe_failed" | "provision_failed" | "poll_failed" | "mark_ready_failed" | "mark_stopped_failed" | "stop_failed" | "start_failed" | "replace_host_failed" | "recover_failed" | "mark_exited_failed" | "signal_failed" | "diagnose_failed" | "report_silent_failed" | "reserve_failed" | "release_failed";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                error: string;
                retry_in_ms: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "unlocked" | "heartbeat" | "stopped" | "starting" | "stop_issued";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: Record<string, never>;
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "ready";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description a job back after a loss: which restart */
                restart?: number;
                /** @description from the loss noticed to this machine running */
                loss_to_running_ms?: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "exited";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                code: number | null;
                signal: string | null;
                /** @description ISO 8601, UTC */
                at: string;
                /** @description a job that recovers: the attempt this exit ends (the lease's exit is its last attempt's) */
                attempt?: number;
                /** @description a job that recovers: how long this attempt's machine ran until the exit */
                machine_ms?: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "killed_by_runtime_cap" | "killed_by_inactivity";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @enum {string} */
                signal: "TERM" | "KILL";
                command_id: string;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "stalled";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description ISO 8601, UTC */
                silent_since: string;
                silent_ms: number;
                diagnostics_id: string | null;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "diagnostics";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                command_id: string;
                exit_code: number | null;
                /** @description process list and nvidia-smi, at most 8 KiB */
                output: string;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "agent_silent";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description ISO 8601, UTC */
                last_heartbeat_at: string;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "outputs_requested";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description the `collect` queued for the agent */
                command_id: string;
                /** @description the bound: the release goes on then at the latest */
                until: string;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "outputs_uploaded";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                files: number;
                bytes: number;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        } | {
            /** @description the event's id within its lease's own log */
            seq: number;
            /** @description ISO 8601, UTC */
            at: string;
            /** @enum {string} */
            type: "outputs_incomplete";
            /** @enum {string|null} */
            from: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @enum {string|null} */
            to: "pending" | "provisioning" | "booting" | "ready" | "stopping" | "stopped" | "starting" | "releasing" | "released" | null;
            /** @description why: user_end, ttl_expired, idle_timeout, host_failed, ... (the lease's release reasons) */
            reason: string | null;
            detail: {
                /** @description paths not stored, the first 100 (at most 8 KiB) */
                missing: string[];
                missing_count: number;
                files: number;
                bytes: number;
                /** @description false: the release waited for the outputs and no manifest came */
                manifest?: boolean;
            };
            /** @description the event's id in the org's log: pages and streams resume after it */
            id: number;
            /** @description the lease the event belongs to */
            lease_id: string;
        };
        WebhookWithSecret: components["schemas"]["Webhook"] & {
            /** @description `whsec_` + base64: verify deliveries with it; shown in this answer only */
            secret: string;
        };
        Webhook: {
            id: string;
            url: string;
            events: string[];
            enabled: boolean;
            /**
             * @description gone: the receiver answered 410; failing: 100 failures in a row, or five days without a delivery
             * @enum {string|null}
             */
            disabled_reason: "gone" | "failing" | null;
            disabled_at: string | null;
            /** @description the first failed attempt since the last delivery */
            failing_since: string | null;
            /** @description failed attempts in a row since the last delivery */
            consecutive_failures: number;
            /** @description after a rotation, until when the previous secret also signs */
            previous_secret_until: string | null;
            created_at: string;
            updated_at: string;
        };
        CreateWebhook: {
            /**
             * @description an https URL (port 443) on a public address
             * @example https://hooks.example.com/lessor
             */
            url: string;
            /**
             * @description the event types to deliver, as the event log names them (`created`, `ready`, `released`, `webhook_disabled`, ...), or `["*"]` for all
             * @example [
             *       "released"
             *     ]
             */
            events: string[];
        };
        UpdateWebhook: {
            /**
             * @description an https URL (port 443) on a public address
             * @example https://hooks.example.com/lessor
             */
            url?: string;
            /**
             * @description the event types to deliver, as the event log names them (`created`, `ready`, `released`, `webhook_disabled`, ...), or `["*"]` for all
             * @example [
             *       "released"
             *     ]
             */
            events?: string[];
            /**
             * @description true: enable a disabled endpoint again (its failure clock and count start over)
             * @enum {boolean}
             */
            enabled?: true;
        };
        WebhookDelivery: {
            id: string;
            /** @description the `webhook-id` header: the same for every attempt of this event */
            webhook_id: string;
            type: string;
            /** @enum {string} */
            status: "pending" | "succeeded" | "failed";
            attempts: number;
            /** @description the receiver's status at the last attempt; null: no answer */
            response_status: number | null;
            /** @description why the last attempt failed without an answer, or why no attempt was made */
            error: string | null;
            latency_ms: number | null;
            attempted_at: string | null;
            /** @description when it is tried next; null once it succeeded or failed for good */
            next_attempt_at: string | null;
            created_at: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
