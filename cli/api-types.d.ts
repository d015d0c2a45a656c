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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                        provision_delay_ms?: number;
                        boot_delay_ms?: number;
                        retry_after_s?: number;
                        vanish_min_ms?: number;
                        vanish_max_ms?: number;
                        seed?: number;
                        billing_window_ms?: number;
                        billing_delay_ms?: number;
                        billing_markup?: number;
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
        /** Start, stop or destroy a simulated machine as a provider's console would, behind lessor's back (bootstrap token) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                    action: "start" | "stop" | "destroy";
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description invalid_state: the machine is not in a status the action applies to */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description limit_reached: the org holds as many keys as it may */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description issuer_exists: this org already trusts that iss and aud (details.id); issuer_taken: another org registered them; limit_reached */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description provider_account_mismatch: the new key does not see every machine this org's live leases hold on the provider (details: not_seen, live_machines, leases); nothing changed */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description provider_key_refused: the provider refused the key or its settings; nothing stored */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description provider_keys_disabled: no LESSOR_MASTER_KEY on this installation. provider_unavailable: the provider did not answer the list that proves the new key sees the live leases' machines; nothing changed */
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description provider_in_use: live leases on this provider need the key to end their machines */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no_capacity: nothing fits; details name the constraint. provider_not_configured: the spec names only providers this org has no working key for. idempotency_in_progress */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description idempotency_mismatch: this Idempotency-Key was used with a different body */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description over_budget: the lease would pass one of the org's caps; nothing was rented */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description quote_expired; quote_drift: the offer's price rose beyond the quote's tolerance; name_taken: a live lease of the org has this name (details: lease_id); provider_not_configured: the org cannot rent from the spec's or the quote's providers; no_capacity: nothing fits (details name the constraint); idempotency_in_progress */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description idempotency_mismatch: this Idempotency-Key was used with a different body */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
        /** Every transition of a lease with its reason, oldest first */
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
                /** @description The events */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            data: components["schemas"]["LeaseEvent"][];
                        };
                    };
                };
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description over_budget: the lease's new worst case would pass one of the org's caps; nothing changed */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description over_budget: the lease's new worst case would pass one of the org's caps; nothing changed */
                402: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description invalid_state: the action does not apply to the lease in its state (details: state, action) */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                /** @description invalid_request: the request does not match the schema (details.issues); invalid_duration, invalid_spec, invalid_gpu_count, invalid_cursor, invalid_range, invalid_idempotency_key: a field lessor reads is not one it accepts (details.field where one is named) */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No valid credential */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The credential's scope does not allow this */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Not found (or another org's) */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Over the credential's request budget; see Retry-After */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
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
                message: string;
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
            now: number;
            machines: {
                [key: string]: unknown;
            }[];
        };
        SimFaults: {
            api_error_rate: number;
            rate_limit_rate: number;
            ambiguous_create_rate: number;
            boot_failure_rate: number;
            vanish_rate: number;
            no_capacity_rate: number;
            provision_delay_ms: number;
            boot_delay_ms: number;
            retry_after_s: number;
            vanish_min_ms: number;
            vanish_max_ms: number;
            seed: number;
            billing_window_ms: number;
            billing_delay_ms: number;
            billing_markup: number;
        };
        /** @description A simulated machine as the sim's API answers it */
        SimMachine: {
            [key: string]: unknown;
        };
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
             * @description where the issuer publishes its signing keys (https)
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
            /** @description the most the policy's hard cap lets the lease cost (compute and bandwidth allowance); null when uncapped */
            ceiling_usd: number | null;
            ceiling_parts: {
                compute_usd: number;
                bandwidth_usd: number;
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
        };
        QuoteRequest: {
            spec: components["schemas"]["Spec"];
            /**
             * @default scratch
             * @enum {string}
             */
            kind?: "deployment" | "scratch" | "job";
            policy?: components["schemas"]["PolicyInput"];
        };
        PolicyInput: {
            ttl?: components["schemas"]["Duration"];
            idle_timeout?: components["schemas"]["Duration"] & (string | null);
            max_lifetime?: components["schemas"]["Duration"] & (string | null);
            stopped_ttl?: components["schemas"]["Duration"] & (string | null);
            heartbeat_grace?: components["schemas"]["Duration"];
            boot_timeout?: components["schemas"]["Duration"];
            startup_timeout?: components["schemas"]["Duration"] & (string | null);
            host_attempts?: number;
            max_session_usd?: number | null;
        };
        /**
         * @description a duration: `90s`, `15m`, `2h`, `1d`; at most 366 days
         * @example 2h
         */
        Duration: string;
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
            offer: components["schemas"]["Offer"] & (Record<string, never> | null);
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
            release_reason: "user_end" | "user_stop" | "user_start" | "ttl_expired" | "idle_timeout" | "max_lifetime" | "budget_exceeded" | "stopped_ttl" | "boot_timeout" | "startup_timeout" | "host_failed" | "no_capacity" | "provider_refused" | "provider_lost" | "provider_stopped" | "stop_failed" | "orphan" | "preempted" | "unexpected_start" | null;
            /** @description ISO 8601, UTC */
            released_at: string | null;
            warnings: string[];
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
            cmd?: string;
            /**
             * @description unique among the org's live leases; a released lease frees its name
             * @example train-7b
             */
            name?: string;
            spec: components["schemas"]["Spec"];
        };
        CreateLeaseForQuote: {
            /** @enum {string} */
            kind: "deployment" | "scratch" | "job";
            policy?: components["schemas"]["PolicyInput"];
            /** @description container image; pin it by digest (`@sha256:`) */
            image?: string;
            cmd?: string;
            /**
             * @description unique among the org's live leases; a released lease frees its name
             * @example train-7b
             */
            name?: string;
            quote_id: string;
        };
        /** @description A lease: state, machine, offer, policy, deadlines and its estimate */
        GuardedLease: components["schemas"]["Lease"] & {
            guard: {
                /** @description stop, destroy, ... or none */
                action: string;
                reason: string | null;
                /** @description ISO 8601, UTC */
                at: string | null;
                due: boolean;
            };
        };
        LeaseEvent: {
            seq: number;
            at: string;
            type: string;
            from: string | null;
            to: string | null;
            reason: string | null;
            detail: {
                [key: string]: unknown;
            };
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
            };
        };
        UsageRow: {
            /** @description the provider, GPU class, lease id or day (YYYY-MM-DD) of the group */
            key: string;
            /** @description lessor's estimate: rate times billable time, never a bill */
            estimate_usd: number;
            /** @description the providers' own billing records fetched so far */
            actual_usd: number;
            /** @description the part of actual_usd on leases whose receipt is disputed */
            disputed_usd: number;
            leases: number;
        } & {
            [key: string]: unknown;
        };
        /** @description A lease's actual cost from the provider's records for closed windows, its parts and windows, and the estimate beside it */
        Receipt: {
            [key: string]: unknown;
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
