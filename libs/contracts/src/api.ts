/**
 * The REST API's paths and schemas as TypeScript types, generated from libs/contracts/openapi.json.
 * Do not edit: `npx arbiter openapi` writes it (`--check` fails when it is stale).
 */
export interface paths {
    "/api/v1/acls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The cluster's ACLs (Mesos's JSON format) */
        get: operations["Acls_get"];
        /** Replace the ACLs as a whole (validated; audited). Actions: register_frameworks, run_tasks, teardown_frameworks, reserve_resources, unreserve_resources, create_volumes, destroy_volumes, update_quotas, update_weights, view_frameworks, view_tasks, access_sandboxes, view_roles, view_agents, view_audit, get_endpoints, update_whitelist, update_maintenance_schedule, start_maintenance, stop_maintenance, drain_agents, deactivate_agents, mark_agents_gone, register_agents, simulate */
        put: operations["Acls_replace"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agents (filter, sort, paginate): only those whose hostname the view_agents ACL allows */
        get: operations["Agents_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One agent (403 when the view_agents ACL refuses its hostname) */
        get: operations["Agents_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}/deactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop offering the agent (running tasks keep running) */
        post: operations["Agents_deactivate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}/drain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deactivate the agent and drain its tasks (killed after the grace period) */
        post: operations["Agents_drain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{id}/reactivate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Offer the agent again (refused while it is draining) */
        post: operations["Agents_reactivate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/allocations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Allocation cycles, newest first (time range; cycles that offered to a role, framework or agent) */
        get: operations["History_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/allocations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One cycle: its offers, shares and decision trace */
        get: operations["History_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/allocations/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export cycles with their offers and shares as CSV or JSON */
        get: operations["History_export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/allocations/shares": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Dominant share over time per role or framework */
        get: operations["History_shares"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Operator audit log, newest first (the entries of the principals view_audit allows, of the roles view_roles allows) */
        get: operations["Audit_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/cluster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The cluster at a glance: capacity and use per resource, counts by state, the latest cycle, alerts */
        get: operations["Cluster_summary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/executors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Executors, newest first (filter by agent, framework, state); a principal sees those of the frameworks whose tasks it may view */
        get: operations["Executors_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/frameworks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List frameworks with their roles, tasks, offers and dominant share */
        get: operations["Frameworks_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/frameworks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One framework */
        get: operations["Frameworks_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/frameworks/{id}/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Why the framework got, or did not get, offers in recent cycles (plain words and data) */
        get: operations["Explain_explain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/frameworks/{id}/teardown": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Tear the framework down: its tasks are killed and it cannot re-subscribe */
        post: operations["Frameworks_teardown"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/maintenance/schedule": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The maintenance schedule */
        get: operations["Maintenance_schedule"];
        /** Replace the schedule (a machine in one window at most; DOWN machines must stay) */
        put: operations["Maintenance_replace"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/maintenance/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start maintenance: scheduled machines go DOWN (their agents get no offers) */
        post: operations["Maintenance_start"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/maintenance/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Machines' modes and frameworks' answers to inverse offers */
        get: operations["Maintenance_status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/maintenance/stop": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Stop maintenance: DOWN machines come back UP and leave the schedule */
        post: operations["Maintenance_stop"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/offers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Offers, newest first (filter by state, framework, agent) */
        get: operations["Offers_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every principal with its kind and number of live tokens */
        get: operations["Principals_list"];
        put?: never;
        /** Create a principal (ADMIN, OPERATOR, VIEWER, FRAMEWORK or AGENT) */
        post: operations["Principals_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{name}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Disable a principal: its tokens stop working and its open sockets are closed */
        post: operations["Principals_disable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/principals/{name}/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A principal's tokens (never their secrets) */
        get: operations["Principals_tokens"];
        put?: never;
        /** Issue a token for a principal: the secret is in this answer only */
        post: operations["Principals_issue"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quota": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Quotas: guarantees and limits per top-level role */
        get: operations["Roles_quotas"];
        /** Set the quota of several roles (all or nothing; guarantees within capacity unless force=true) */
        put: operations["Roles_updateQuotas"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/quota/{role}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a role's quota */
        delete: operations["Roles_removeQuota"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reservations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Reservations, newest first (filter by agent and role) */
        get: operations["Reservations_list"];
        put?: never;
        /** Reserve an agent's free unreserved resources for a role */
        post: operations["Reservations_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/reservations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One reservation */
        get: operations["Reservations_get"];
        put?: never;
        post?: never;
        /** Unreserve (refused while the role uses the reserved resources) */
        delete: operations["Reservations_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every known role with weight, quota, allocation, reservations and frameworks */
        get: operations["Roles_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a session: a new token of the caller's principal that expires within 12 hours (and not after the caller's token); the secret is in this answer only */
        post: operations["Sessions_start"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sessions/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End the session this request is made with: its token stops working at once and its sockets close */
        delete: operations["Sessions_end"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/simulate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * What if: the next allocation cycles from a snapshot of the live allocator, without and with a change (weights, quota, agents, frameworks, a framework's demand); changes nothing
         * @description Runs in a worker thread, one simulation at a time unless ARBITER_SIMULATIONS allows more (429 SIMULATION_BUSY beyond); at most 10,000 added agents and 100 added frameworks (400 SIMULATION_TOO_LARGE); the simulate ACL on the roles the change names.
         */
        post: operations["WhatIf_run"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Tasks, newest first (filter by state, framework, agent, reason, last update) */
        get: operations["Tasks_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One task with its state history */
        get: operations["Tasks_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{id}/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A directory of the task's sandbox (Mesos's /files/browse; needs the view_tasks and access_sandboxes ACLs), and where its logs are */
        get: operations["Sandboxes_browse"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{id}/files/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A whole file of the task's sandbox, as an attachment (served by the leader, to which the agents connect) */
        get: operations["Sandboxes_download"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{id}/files/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Bytes of a file in the task's sandbox from an offset (Mesos's /files/read: offset -1 answers the size); follow a log by reading again from offset + length */
        get: operations["Sandboxes_read"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{id}/kill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Kill a task: SIGTERM, then SIGKILL after the grace period (default 5 s); its framework gets KILLED (audited; needs the teardown_frameworks ACL on the framework's principal) */
        post: operations["Tasks_kill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a token: refused at once, its open sockets closed */
        delete: operations["Principals_revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/volumes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Persistent volumes, newest first (filter by agent and role) */
        get: operations["Volumes_list"];
        put?: never;
        /** Create a persistent volume on disk reserved for a role (Mesos's CREATE); the agent makes its directory */
        post: operations["Volumes_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/volumes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One persistent volume */
        get: operations["Volumes_get"];
        put?: never;
        post?: never;
        /** Destroy a persistent volume and its data (Mesos's DESTROY; refused while a task uses it) */
        delete: operations["Volumes_destroy"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/weights": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Weights set explicitly (others weigh 1) */
        get: operations["Roles_weights"];
        /** Update the weights of several roles at once (all or nothing) */
        put: operations["Roles_updateWeights"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/whitelist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The agent whitelist */
        get: operations["Whitelist_get"];
        /** Replace the whitelist (null: every agent; []: none) */
        put: operations["Whitelist_replace"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Add hostnames to the whitelist or remove them (removing with no whitelist set starts one with every other present agent) */
        patch: operations["Whitelist_change"];
        trace?: never;
    };
    "/api/v1/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The principal behind the bearer token (how a client checks a token before using it) */
        get: operations["Auth_whoami"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness, database reachability and this replica's role (no token needed) */
        get: operations["Health_health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (a token whose principal the get_endpoints ACL allows /metrics; per-role series of the roles view_roles allows) */
        get: operations["Health_metricsText"];
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
        AclsDto: {
            /**
             * @description the ACLs in Mesos's JSON format: `permissive` and, per action, a list of {principals, <object>} entries
             * @example {
             *       "permissive": false,
             *       "register_frameworks": [
             *         {
             *           "principals": {
             *             "values": [
             *               "team-a"
             *             ]
             *           },
             *           "roles": {
             *             "values": [
             *               "team-a",
             *               "team-a/*"
             *             ]
             *           }
             *         }
             *       ]
             *     }
             */
            document: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description when they were last replaced (null: never set)
             */
            updatedAt: string | null;
            /** @description who last replaced them */
            updatedBy: string | null;
        };
        AgentCapabilitiesDto: {
            /**
             * @example [
             *       "mesos"
             *     ]
             */
            containerizers: string[];
            gpus: components["schemas"]["AgentGpuDto"][];
            /** @description why images cannot run there (tasks with an image are refused at the accept) */
            imagesProblem?: string;
            /**
             * @description Mesos's isolator names
             * @example [
             *       "cgroups/mem",
             *       "filesystem/linux",
             *       "namespaces/pid",
             *       "network/ports"
             *     ]
             */
            isolators: string[];
            /** @description the OCI runtime that runs images (absent: none) */
            runtime?: components["schemas"]["AgentRuntimeInfoDto"];
            /**
             * @example {
             *       "skopeo": "1.9.3",
             *       "umoci": "0.4.7"
             *     }
             */
            tools: {
                [key: string]: string;
            };
        };
        AgentCountsDto: {
            /** @description reachable, not offered by an operator */
            deactivated: number;
            /** @description machines DOWN for maintenance */
            down: number;
            /** @description draining or drained */
            draining: number;
            gone: number;
            reachable: number;
            total: number;
            unreachable: number;
        };
        AgentGpuDto: {
            index: number;
            /** @example NVIDIA H100 80GB HBM3 */
            model: string;
            uuid?: string;
        };
        AgentHealthDto: {
            /** @description false while something keeps it from running new tasks */
            ok: boolean;
            problems: components["schemas"]["AgentProblemDto"][];
            /** @description its sandboxes' disk, as it last reported (absent: not reported) */
            sandboxDisk?: components["schemas"]["SandboxDiskDto"];
        };
        AgentIsolationDto: {
            /**
             * @description cgroup controllers limiting each task
             * @example [
             *       "memory",
             *       "cpu",
             *       "pids"
             *     ]
             */
            controllers: string[];
            /** @description disk use measured and enforced */
            diskQuota: boolean;
            /**
             * @description posix: process groups and polling only, no hard limits
             * @enum {string}
             */
            mode: "cgroups-v1" | "cgroups-v2" | "posix";
            /**
             * @description OS user of tasks whose spec names none
             * @example nobody
             */
            taskUser?: string;
        };
        AgentMaintenanceDto: {
            /** @description seconds; null: until maintenance is stopped */
            durationSeconds: number | null;
            /**
             * @description DRAINING: scheduled (frameworks get inverse offers); DOWN: in maintenance (no offers)
             * @enum {string}
             */
            mode: "DRAINING" | "DOWN";
            /** @description start of the machine's unavailability */
            start: string;
        };
        AgentPageDto: {
            items: components["schemas"]["AgentViewDto"][];
            limit: number;
            offset: number;
            total: number;
        };
        AgentProblemDto: {
            /**
             * @description DISK_RESERVE_IN_USE: launches are refused (DROPPED) until there is room
             * @enum {string}
             */
            code: "DISK_RESERVE_IN_USE" | "JOURNAL_UNWRITABLE" | "WORK_DIR_UNREADABLE";
            /** @example its work directory /var/lib/arbiter has 12.0 MiB free, under the 32.0 MiB it keeps for its journal and checkpoints */
            message: string;
        };
        AgentRuntimeInfoDto: {
            /** @example runc */
            name: string;
            /** @example 1.1.12 */
            version: string;
        };
        /** @enum {string} */
        AgentStatus: "REACHABLE" | "UNREACHABLE" | "GONE";
        AgentUsageDto: {
            /** @description tasks not in a terminal state */
            activeTasks: number;
            /**
             * @description offered and not yet answered (revocable amounts included)
             * @example {
             *       "cpus": 4,
             *       "mem": 8192
             *     }
             */
            offered: {
                [key: string]: number;
            };
            /**
             * @description reserved for roles (used or not)
             * @example {
             *       "cpus": 4,
             *       "mem": 8192
             *     }
             */
            reserved: {
                [key: string]: number;
            };
            /** @description oversubscription: the agent's revocable resources as the leader's allocator has them (empty maps when it reports none, or is not reachable) */
            revocable: components["schemas"]["RevocableUsageDto"];
            /**
             * @description scalar totals of the agent (revocable amounts included)
             * @example {
             *       "cpus": 4,
             *       "mem": 8192
             *     }
             */
            total: {
                [key: string]: number;
            };
            /**
             * @description held by live tasks and their executors (revocable amounts included)
             * @example {
             *       "cpus": 4,
             *       "mem": 8192
             *     }
             */
            used: {
                [key: string]: number;
            };
        };
        AgentViewDto: {
            /** @description false when deactivated: no new offers */
            activated: boolean;
            /** @description host:port of the agent */
            address: string | null;
            /**
             * @example {
             *       "rack": "r1"
             *     }
             */
            attributes: {
                [key: string]: string | number;
            };
            /** @description its containerizers, isolators, runtime, tools and GPUs, as it reported (null: an older agent, plain processes only) */
            capabilities: components["schemas"]["AgentCapabilitiesDto"] | null;
            drainConfig: components["schemas"]["DrainConfigDto"] | null;
            drainStartedAt: string | null;
            drainState: components["schemas"]["DrainState"] | null;
            /** @description its running executors (one agent only; those of the frameworks whose tasks the caller may view) */
            executors?: components["schemas"]["ExecutorDto"][];
            firstSeenAt: string;
            /** @description what keeps it from running new tasks, as it last reported (null: it never said) */
            health: components["schemas"]["AgentHealthDto"] | null;
            hostname: string;
            id: string;
            /** @description how it isolates tasks, as it reported */
            isolation: components["schemas"]["AgentIsolationDto"] | null;
            lastSeenAt: string;
            /** @description the maintenance window of its machine, if any */
            maintenance: components["schemas"]["AgentMaintenanceDto"] | null;
            /** @description the principal that registered it (only it may register under its id) */
            principal: string | null;
            /** @description total resources */
            resources: components["schemas"]["ResourceEntryDto"][];
            /**
             * @description total resources, Mesos text form
             * @example cpus:4;mem:8192;ports:[31000-32000]
             */
            resourcesText: string;
            status: components["schemas"]["AgentStatus"];
            usage: components["schemas"]["AgentUsageDto"];
            version: string | null;
            /** @description false when a whitelist is set and does not name the hostname */
            whitelisted: boolean;
        };
        /**
         * @description the stable code of the alert
         * @enum {string}
         */
        AlertCode: "NO_AGENTS" | "AGENT_UNREACHABLE" | "AGENT_DISCONNECTED" | "AGENT_DEACTIVATED" | "AGENT_DRAINING" | "MACHINE_DOWN" | "FRAMEWORK_DISCONNECTED" | "OFFERS_HELD" | "WHITELIST_EMPTY" | "WHITELIST_EXCLUDES" | "QUOTA_OVER_CAPACITY" | "QUOTA_GUARANTEE_UNMET";
        AlertDto: {
            /**
             * @description the stable code of the alert
             * @example AGENT_UNREACHABLE
             */
            code: components["schemas"]["AlertCode"];
            message: string;
            severity: components["schemas"]["AlertSeverity"];
            target: components["schemas"]["AlertTargetDto"];
        };
        /** @enum {string} */
        AlertSeverity: "critical" | "warning" | "info";
        AlertTargetDto: {
            id: string | null;
            /** @enum {string} */
            kind: "agent" | "framework" | "role" | "cluster";
        };
        AuditEntryDto: {
            /** @example agent.deactivate */
            action: string;
            /** @description principal name */
            actor: string;
            /** @description state after the change */
            after: Record<string, never> | null;
            at: string;
            /** @description state before the change */
            before: Record<string, never> | null;
            /** @description increasing sequence number */
            id: string;
            requestId: string | null;
            targetId: string | null;
            /** @example agent */
            targetType: string;
            tokenId: string | null;
        };
        AuditPageDto: {
            items: components["schemas"]["AuditEntryDto"][];
            limit: number;
            offset: number;
            total: number;
        };
        CheckStatusDto: {
            /** @description COMMAND: the command's exit code */
            exitCode?: number;
            /** @description HTTP: the status code */
            statusCode?: number;
            /** @description TCP: whether it connected */
            succeeded?: boolean;
            /** @enum {string} */
            type: "COMMAND" | "HTTP" | "TCP";
        };
        ClusterSummaryDto: {
            /** @description tasks not in a terminal state */
            activeTasks: number;
            agents: components["schemas"]["AgentCountsDto"];
            /** @description most severe first */
            alerts: components["schemas"]["AlertDto"][];
            frameworks: components["schemas"]["FrameworkCountsDto"];
            /** @description the latest recorded allocation cycle */
            lastCycle: components["schemas"]["LastCycleDto"] | null;
            /** @description offers made and not yet answered */
            outstandingOffers: number;
            /** @description scalar resources, by name */
            resources: components["schemas"]["ResourceSummaryDto"][];
            /** @description oversubscription: reachable agents' revocable resources as the leader's allocator has them (empty maps when none reports any) */
            revocable: components["schemas"]["RevocableUsageDto"];
            /**
             * @description tasks by state (every task ever launched)
             * @example {
             *       "RUNNING": 3,
             *       "FINISHED": 10
             *     }
             */
            tasks: {
                [key: string]: number;
            };
        };
        ContainerDto: {
            hostname?: string;
            image?: components["schemas"]["ContainerImageDto"];
            /** @description DOCKER: offered host ports onto the container's */
            portMappings?: components["schemas"]["PortMappingDto"][];
            /**
             * @description both run through the agent's one containerizer; MESOS without an image: a plain isolated process
             * @enum {string}
             */
            type: "MESOS" | "DOCKER";
            volumes?: components["schemas"]["VolumeDto"][];
        };
        ContainerImageDto: {
            /** @description fetch the manifest again even when the agent's store has the tag */
            forcePull?: boolean;
            /**
             * @description a Docker reference; a digest pins it
             * @example registry.local:5000/team/app:1.2
             */
            name: string;
        };
        CreatePersistentVolumeDto: {
            agentId: string;
            /**
             * @description where tasks see it: relative to the sandbox, or absolute in an image
             * @example data
             */
            containerPath: string;
            /**
             * @description size in MB, taken from the role’s reserved disk on the agent
             * @example 512
             */
            disk: number;
            /**
             * @default RW
             * @enum {string}
             */
            mode: "RW" | "RO";
            /**
             * @description the persistence id (Mesos's disk.persistence.id), unique per role on the agent
             * @example data-1
             */
            persistenceId: string;
            /**
             * @description the role whose reserved disk the volume takes
             * @example db
             */
            role: string;
            /** @description the disk to make it on, when not the root disk (a MOUNT disk is taken whole) */
            source?: components["schemas"]["DiskSourceDto"];
        };
        CreatePrincipalDto: {
            /** @example team A's batch scheduler */
            description?: string;
            /** @description what the principal may do (see docs/security.md) */
            kind: components["schemas"]["PrincipalKind"];
            /**
             * @description unique; letters, digits and . _ @ - (no ':', which ends the principal in Basic authentication)
             * @example team-a-scheduler
             */
            name: string;
        };
        CreateReservationDto: {
            agentId: string;
            /**
             * @example {
             *       "team": "ml"
             *     }
             */
            labels?: {
                [key: string]: string;
            };
            /**
             * @description refinement: take the resources from the reservations of this role (a strict ancestor of `role`) on the agent instead of its unreserved resources; removing the refined reservation gives them back to it
             * @example eng
             */
            refines?: string;
            /** @description unreserved resources to reserve, e.g. "cpus:2;mem:4096" */
            resources: string | {
                [key: string]: unknown;
            } | components["schemas"]["ResourceEntryDto"][];
            /** @example eng */
            role: string;
        };
        CreateTokenDto: {
            /**
             * @description what the token is for
             * @example ci pipeline
             */
            name?: string;
            /**
             * @description seconds until the token expires (default: never)
             * @example 2592000
             */
            ttlSeconds?: number;
        };
        CycleDetailDto: {
            /** @description time the allocator took, in milliseconds */
            durationMs: number;
            id: string;
            offerCount: number;
            offers: components["schemas"]["OfferDto"][];
            /** @description decisions counted by reason */
            reasons?: {
                [key: string]: number;
            };
            shares: components["schemas"]["ShareDto"][];
            startedAt: string;
            /** @description the decision trace: {entries, counts, truncated} */
            trace: {
                [key: string]: unknown;
            } | null;
        };
        CycleDto: {
            /** @description time the allocator took, in milliseconds */
            durationMs: number;
            id: string;
            offerCount: number;
            /** @description decisions counted by reason */
            reasons?: {
                [key: string]: number;
            };
            startedAt: string;
        };
        CyclePageDto: {
            items: components["schemas"]["CycleDto"][];
            limit: number;
            offset: number;
            /** @description matches, counted up to offset + 10,000 */
            total: number;
            /** @description true when counting stopped at offset + 10,000 matches: there are more than `total` */
            totalCapped: boolean;
        };
        DiscoveryDto: {
            environment?: string;
            labels?: components["schemas"]["LabelDto"][];
            location?: string;
            name?: string;
            ports?: components["schemas"]["DiscoveryPortDto"][];
            version?: string;
            /** @enum {string} */
            visibility: "FRAMEWORK" | "CLUSTER" | "EXTERNAL";
        };
        DiscoveryPortDto: {
            labels?: components["schemas"]["LabelDto"][];
            name?: string;
            number: number;
            protocol?: string;
            /** @enum {string} */
            visibility?: "FRAMEWORK" | "CLUSTER" | "EXTERNAL";
        };
        DiskSourceDto: {
            /** @example /mnt/disk1 */
            root: string;
            /** @enum {string} */
            type: "PATH" | "MOUNT";
        };
        DrainAgentDto: {
            /**
             * @description mark the agent GONE once drained (it can never come back under this id)
             * @default false
             */
            markGone: boolean;
            /** @description seconds tasks get to finish before being killed; absent: as long as they need */
            maxGracePeriodSeconds?: number;
        };
        DrainConfigDto: {
            markGone: boolean;
            maxGracePeriodSeconds: number | null;
        };
        DrainingMachineDto: {
            machine: components["schemas"]["MachineIdDto"];
            statuses: components["schemas"]["InverseOfferStatusDto"][];
        };
        /** @enum {string} */
        DrainState: "DRAINING" | "DRAINED";
        /**
         * @description stable machine-readable code
         * @enum {string}
         */
        ErrorCode: "VALIDATION_FAILED" | "MALFORMED_JSON" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "NOT_ACCEPTABLE" | "ROUTE_NOT_FOUND" | "CONCURRENT_UPDATE" | "DATABASE_UNAVAILABLE" | "INTERNAL_ERROR" | "NO_LEADER" | "AUTH_TOKEN_MISSING" | "AUTH_TOKEN_INVALID" | "FORBIDDEN" | "PRINCIPAL_NOT_FOUND" | "PRINCIPAL_EXISTS" | "PRINCIPAL_DISABLED" | "TOKEN_NOT_FOUND" | "NOT_A_SESSION" | "ACLS_INVALID" | "AGENT_NOT_FOUND" | "AGENT_GONE" | "AGENT_STILL_DRAINING" | "AGENT_ALREADY_DRAINING" | "FRAMEWORK_NOT_FOUND" | "FRAMEWORK_NOT_CONNECTED" | "TASK_NOT_FOUND" | "CYCLE_NOT_FOUND" | "SANDBOX_UNREACHABLE" | "SANDBOX_PATH_INVALID" | "SANDBOX_FILE_NOT_FOUND" | "SANDBOX_NOT_A_FILE" | "ROLE_REPEATED" | "QUOTA_NOT_FOUND" | "QUOTA_GUARANTEE_EXCEEDS_LIMIT" | "QUOTA_HIERARCHY_VIOLATION" | "QUOTA_EXCEEDS_CAPACITY" | "RESERVATION_NOT_FOUND" | "RESERVATION_INSUFFICIENT_RESOURCES" | "RESERVATION_IN_USE" | "RESERVATION_REFINEMENT_INVALID" | "VOLUME_NOT_FOUND" | "VOLUME_EXISTS" | "VOLUME_INSUFFICIENT_DISK" | "VOLUME_IN_USE" | "VOLUME_AGENT_UNREACHABLE" | "VOLUME_AGENT_FAILED" | "SIMULATION_TOO_LARGE" | "SIMULATION_BUSY" | "MAINTENANCE_DUPLICATE_MACHINE" | "MAINTENANCE_DOWN_MACHINE_REMOVED" | "MAINTENANCE_MACHINE_NOT_SCHEDULED" | "MAINTENANCE_MACHINE_ALREADY_DOWN" | "MAINTENANCE_MACHINE_NOT_DOWN";
        ErrorDto: {
            /**
             * @description stable machine-readable code
             * @example VALIDATION_FAILED
             */
            code: components["schemas"]["ErrorCode"];
            /** @description structured context, e.g. the fields that failed validation */
            details: {
                [key: string]: unknown;
            } | null;
            /** @example invalid request: weight must be a positive number */
            message: string;
            /** @example 400 */
            statusCode: number;
        };
        ExecutorDto: {
            agentId: string;
            endedAt: string | null;
            /** @description why it ended (Mesos's reason) */
            endReason: string | null;
            /** @description the framework's own id for the executor (Mesos's ExecutorInfo.executor_id) */
            executorId: string;
            exitCode: number | null;
            frameworkId: string;
            /** @description the executor's row id */
            id: string;
            message: string | null;
            name: string | null;
            /** @description its own resources, beside its tasks */
            resources: components["schemas"]["ResourceEntryDto"][];
            resourcesText: string;
            /** @description the role whose offered resources its own resources came from */
            role: string;
            signal: string | null;
            startedAt: string;
            state: components["schemas"]["ExecutorState"];
            /** @description the framework's ids of the tasks it ran, oldest first */
            tasks: string[];
            /** @enum {string} */
            type: "CUSTOM" | "DEFAULT";
        };
        ExecutorPageDto: {
            items: components["schemas"]["ExecutorDto"][];
            limit: number;
            offset: number;
            /** @description matches, counted up to offset + 10,000 */
            total: number;
            /** @description true when counting stopped at offset + 10,000 matches: there are more than `total` */
            totalCapped: boolean;
        };
        /** @enum {string} */
        ExecutorState: "RUNNING" | "ENDED";
        ExplainDto: {
            cyclesExamined: number;
            /** @description the trace entries about this framework (most recent first, at most 50) */
            examples: {
                [key: string]: unknown;
            }[];
            frameworkId: string;
            offersReceived: number;
            /** @description reasons the framework was passed over, counted over the cycles examined */
            reasons: {
                [key: string]: number;
            };
            /** @description the answer in plain words, one sentence per finding */
            summary: string[];
        };
        FileEntryDto: {
            gid: number;
            /** @description as `ls -l` writes it, e.g. -rw-r--r-- */
            mode: string;
            /** @description last modified, seconds since the epoch */
            mtime: number;
            nlink: number;
            /** @description relative to the sandbox */
            path: string;
            size: number;
            /** @enum {string} */
            type: "file" | "directory" | "symlink" | "other";
            uid: number;
        };
        FilesBrowseDto: {
            /** @description the directory's entries by name (a file's own entry when the path names a file) */
            entries: components["schemas"]["FileEntryDto"][];
            /** @description where the task's own logs are in this sandbox */
            logs: components["schemas"]["TaskLogsDto"];
            /** @description more entries than one answer holds; the rest are left out */
            truncated: boolean;
        };
        FilesReadDto: {
            /** @description the bytes read, as UTF-8 text (or base64, as asked) */
            data: string;
            /** @description their length in bytes */
            length: number;
            /** @description where they start (with offset -1: the file size); the next read starts at offset + their byte length */
            offset: number;
            /** @description the file's size now; smaller than a follower's offset once the log was rotated (read again from 0) */
            size: number;
        };
        FrameworkCountsDto: {
            active: number;
            completed: number;
            /** @description within their failover timeout */
            disconnected: number;
        };
        FrameworkDto: {
            /** @description tasks not in a terminal state */
            activeTasks: number;
            capabilities: string[];
            /** @description Mesos's FrameworkInfo.checkpoint: its tasks survive an agent restart */
            checkpoint: boolean;
            completedAt: string | null;
            /** @description connected to the control plane now */
            connected: boolean;
            disconnectedAt: string | null;
            /**
             * @description dominant share of the framework's live tasks: the largest of `shares`
             * @example 0.667
             */
            dominantShare: number;
            /** @description its running executors (one framework only; seen as its tasks are, with the view_tasks ACL) */
            executors?: components["schemas"]["ExecutorDto"][];
            failoverTimeoutSeconds: number;
            /** @description the scheduler's host (Mesos's FrameworkInfo.hostname) */
            hostname: string | null;
            id: string;
            name: string;
            /** @description offers made and not yet answered */
            outstandingOffers: number;
            principal: string | null;
            /** @description the protocol it subscribed with: Arbiter's own (socket.io, the SDK) or Mesos's v1 scheduler HTTP API */
            protocol: components["schemas"]["FrameworkProtocol"];
            registeredAt: string;
            roles: string[];
            /** @description used / cluster total, per resource */
            shares: {
                [key: string]: number;
            };
            state: components["schemas"]["FrameworkState"];
            suppressedRoles: string[];
            /**
             * @description scalar resources held by the framework's live tasks and its executors
             * @example {
             *       "cpus": 3,
             *       "mem": 12288
             *     }
             */
            used: {
                [key: string]: number;
            };
            /** @description the user its tasks run as (Mesos's FrameworkInfo.user) */
            user: string | null;
            /** @description the framework's own web UI (Mesos's FrameworkInfo.webui_url) */
            webuiUrl: string | null;
        };
        FrameworkPageDto: {
            items: components["schemas"]["FrameworkDto"][];
            limit: number;
            offset: number;
            total: number;
        };
        /**
         * @description the protocol it subscribed with: Arbiter's own (socket.io, the SDK) or Mesos's v1 scheduler HTTP API
         * @enum {string}
         */
        FrameworkProtocol: "arbiter" | "mesos";
        /** @enum {string} */
        FrameworkState: "ACTIVE" | "DISCONNECTED" | "COMPLETED";
        HealthDto: {
            /** @enum {string} */
            database: "ok" | "unavailable";
            /** @description the current leadership term, as last seen (null before any) */
            epoch: number | null;
            /** @description the leader's advertised URL (ARBITER_ADVERTISE_URL), as last seen */
            leader: string | null;
            /**
             * @description whether this replica runs the master or serves as a standby
             * @enum {string}
             */
            role: "leader" | "standby";
            /** @enum {string} */
            status: "ok" | "degraded";
            /** @description seconds since the process started */
            uptimeSeconds: number;
        };
        InverseOfferStatusDto: {
            frameworkId: string;
            /** @enum {string} */
            status: "UNKNOWN" | "ACCEPT" | "DECLINE";
            updatedAt: string;
        };
        IssuedTokenDto: {
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt: string | null;
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            lastUsedAt: string | null;
            name: string;
            principal: string;
            /** Format: date-time */
            revokedAt: string | null;
            /**
             * @description the secret: shown only in this answer, stored only as its hash
             * @example arb_...
             */
            token: string;
        };
        KillTaskDto: {
            /** @description seconds between SIGTERM and SIGKILL (default 5) */
            gracePeriodSeconds?: number;
        };
        LabelDto: {
            key: string;
            value?: string;
        };
        LastCycleDto: {
            durationMs: number;
            id: string;
            offerCount: number;
            startedAt: string;
        };
        MachineDto: {
            /** @example node-1 */
            hostname?: string;
            /** @example 10.0.0.5 */
            ip?: string;
        };
        MachineIdDto: {
            hostname: string;
            ip: string;
        };
        MachinesDto: {
            machines: components["schemas"]["MachineDto"][];
        };
        MaintenanceStatusDto: {
            downMachines: components["schemas"]["MachineIdDto"][];
            drainingMachines: components["schemas"]["DrainingMachineDto"][];
        };
        OfferDto: {
            agentId: string;
            closedAt: string | null;
            createdAt: string;
            /** @description allocation cycle that made the offer */
            cycleId: string | null;
            frameworkId: string;
            id: string;
            resources: components["schemas"]["ResourceEntryDto"][];
            resourcesText: string;
            role: string;
            state: components["schemas"]["OfferState"];
        };
        OfferPageDto: {
            items: components["schemas"]["OfferDto"][];
            limit: number;
            offset: number;
            /** @description matches, counted up to offset + 10,000 */
            total: number;
            /** @description true when counting stopped at offset + 10,000 matches: there are more than `total` */
            totalCapped: boolean;
        };
        /** @enum {string} */
        OfferState: "OUTSTANDING" | "ACCEPTED" | "DECLINED" | "RESCINDED" | "EXPIRED";
        PersistentVolumeDto: {
            agentId: string;
            containerPath: string;
            createdAt: string;
            /** @description size in MB */
            disk: number;
            /** @description where it lives on its agent */
            hostPath?: string | null;
            id: string;
            /** @description frameworks whose live tasks or executors use it (lists and detail) */
            inUseBy?: string[];
            /** @enum {string} */
            mode: "RW" | "RO";
            persistenceId: string;
            /** @description who created it (an operator, or a framework’s principal or framework:<id>) */
            principal: string;
            /**
             * @description the resource tasks name to use it
             * @example disk(db,volume=data-1):512
             */
            resourcesText: string;
            role: string;
            /** @description shared by several tasks at once (made by a SHARED_RESOURCES framework) */
            shared: boolean;
            /** @description its disk, when not the root disk */
            source?: components["schemas"]["DiskSourceDto"] | null;
        };
        PersistentVolumePageDto: {
            items: components["schemas"]["PersistentVolumeDto"][];
            limit: number;
            offset: number;
            total: number;
        };
        PortMappingDto: {
            containerPort: number;
            /** @description an offered port of the agent */
            hostPort: number;
            /** @enum {string} */
            protocol: "tcp" | "udp";
        };
        PrincipalDto: {
            /** Format: date-time */
            createdAt: string;
            description: string;
            /**
             * Format: date-time
             * @description disabled principals cannot authenticate
             */
            disabledAt: string | null;
            kind: components["schemas"]["PrincipalKind"];
            /** @description tokens neither revoked nor expired */
            liveTokens: number;
            name: string;
        };
        /** @enum {string} */
        PrincipalKind: "ADMIN" | "OPERATOR" | "VIEWER" | "FRAMEWORK" | "AGENT";
        QuotaDto: {
            /**
             * @example {
             *       "cpus": 4,
             *       "mem": 8192
             *     }
             */
            guarantees: {
                [key: string]: number;
            };
            /**
             * @example {
             *       "cpus": 4,
             *       "mem": 8192
             *     }
             */
            limits: {
                [key: string]: number;
            };
            role: string;
        };
        QuotaInputDto: {
            /** @description guaranteed amounts: scalars only, e.g. "cpus:4;mem:8192" */
            guarantees?: string | {
                [key: string]: unknown;
            } | components["schemas"]["ResourceEntryDto"][];
            /** @description limits: scalars only; a resource not named is unlimited */
            limits?: string | {
                [key: string]: unknown;
            } | components["schemas"]["ResourceEntryDto"][];
            /**
             * @description a top-level role
             * @example eng
             */
            role: string;
        };
        ReservationDto: {
            agentId: string;
            createdAt: string;
            id: string;
            labels: {
                [key: string]: string;
            };
            /** @description who reserved: an operator or framework:<id> */
            principal: string;
            /** @description refinement: the reservation layers below this one, bottom first (empty when it reserved unreserved resources) */
            refines: {
                principal?: string;
                role?: string;
            }[];
            resources: components["schemas"]["ResourceEntryDto"][];
            /** @example cpus(eng):2;mem(eng):4096 */
            resourcesText: string;
            role: string;
        };
        ReservationPageDto: {
            items: components["schemas"]["ReservationDto"][];
            limit: number;
            offset: number;
            total: number;
        };
        ResourceEntryDto: {
            /** @example cpus */
            name: string;
            /**
             * @description inclusive [begin, end] ranges
             * @example [
             *       [
             *         31000,
             *         32000
             *       ]
             *     ]
             */
            ranges?: number[][];
            /** @description role the piece is reserved for; absent = unreserved */
            reservation?: string;
            revocable?: boolean;
            set?: string[];
            shared?: boolean;
            /** @description a disk's source other than the agent's root disk: PATH (shared out in any amount) or MOUNT (offered and used only whole) */
            source?: {
                root?: string;
                /** @enum {string} */
                type?: "PATH" | "MOUNT";
            };
            /**
             * @description scalar amount
             * @example 4
             */
            value?: number;
            volume?: string;
        };
        ResourceSummaryDto: {
            /** @example cpus */
            name: string;
            /** @description offered and not yet answered */
            offered: number;
            /** @description reserved for roles (used or not) */
            reserved: number;
            /** @description total of reachable agents */
            total: number;
            /** @description held by live tasks */
            used: number;
        };
        RevocableUsageDto: {
            /**
             * @description offered and not yet answered
             * @example {
             *       "cpus": 1
             *     }
             */
            offered: {
                [key: string]: number;
            };
            /**
             * @description what agents offer as revocable now (their resource estimators' answers plus what revocable tasks hold)
             * @example {
             *       "cpus": 2
             *     }
             */
            total: {
                [key: string]: number;
            };
            /**
             * @description held by revocable tasks and executors
             * @example {
             *       "cpus": 1
             *     }
             */
            used: {
                [key: string]: number;
            };
        };
        RoleDto: {
            /**
             * @description held by live tasks and outstanding offers
             * @example {
             *       "cpus": 4,
             *       "mem": 8192
             *     }
             */
            allocated: {
                [key: string]: number;
            };
            /** @description frameworks subscribed to the role */
            frameworks: string[];
            /** @example eng/ml */
            path: string;
            quota: components["schemas"]["QuotaDto"] | null;
            /**
             * @description reserved for the role
             * @example {
             *       "cpus": 4,
             *       "mem": 8192
             *     }
             */
            reserved: {
                [key: string]: number;
            };
            /** @example 1 */
            weight: number;
        };
        RunningImageDto: {
            /**
             * @description the manifest's digest
             * @example sha256:0123...
             */
            digest: string;
            /**
             * @description the image reference, normalized by the agent
             * @example registry.local:5000/team/app:1.2
             */
            reference: string;
        };
        SandboxDiskDto: {
            /**
             * @description what is free on it (rounded down to a thousandth of the disk)
             * @example 80530636800
             */
            freeBytes: number;
            /**
             * @description the share its garbage collection keeps free: there it removes ended sandboxes at once
             * @example 0.1
             */
            gcHeadroom: number;
            /**
             * @description the size of the disk that holds its sandboxes
             * @example 268435456000
             */
            totalBytes: number;
        };
        ScheduleDto: {
            windows: components["schemas"]["WindowDto"][];
        };
        ShareDto: {
            client: string;
            dominantShare: number;
            /** @enum {string} */
            kind: "ROLE" | "FRAMEWORK";
        };
        SharePointDto: {
            at: string;
            client: string;
            cycleId: string;
            dominantShare: number;
        };
        SimulatedCycleDto: {
            cycle: number;
            offers: components["schemas"]["SimulatedOfferDto"][];
            /** @description why resources were not offered, counted by reason */
            reasons: {
                [key: string]: number;
            };
            /** @description weighted dominant shares after the cycle: roles {role: share}, frameworks {frameworkId: {role: share}} */
            shares: {
                frameworks?: {
                    [key: string]: {
                        [key: string]: number;
                    };
                };
                roles?: {
                    [key: string]: number;
                };
            };
        };
        SimulatedOfferDto: {
            agentId: string;
            frameworkId: string;
            resources: Record<string, never>[];
            role: string;
        };
        TaskDto: {
            agentId: string;
            /** @description its general check's last result (null: it has none) */
            checkStatus: components["schemas"]["CheckStatusDto"] | null;
            /** @description its container, as its framework gave it (null: a plain process) */
            container: components["schemas"]["ContainerDto"] | null;
            /** @description the image its agent runs for it (null: none reported yet) */
            containerImage: components["schemas"]["RunningImageDto"] | null;
            createdAt: string;
            /** @description size in bytes of the data handed to its executor (null: none) */
            dataBytes: number | null;
            /** @description how service discovery finds the task; stored and shown, not acted on */
            discovery: components["schemas"]["DiscoveryDto"] | null;
            frameworkId: string;
            /** @description what its health check said last (null: it has none, or none answered yet) */
            healthy: boolean | null;
            /** @description every state change, oldest first (single task only) */
            history?: components["schemas"]["TaskStatusDto"][];
            /** @description the task's row id (GET /api/v1/tasks/{id}) */
            id: string;
            /** @description its kill policy: seconds between SIGTERM and SIGKILL when a kill names none (null: 5) */
            killGracePeriodSeconds: number | null;
            /** @description the framework's labels of the task (Mesos's TaskInfo.labels) */
            labels: components["schemas"]["LabelDto"][];
            /** @description killed and FAILED when still running this long after it started (null: no limit) */
            maxCompletionTimeSeconds: number | null;
            name: string;
            resources: components["schemas"]["ResourceEntryDto"][];
            resourcesText: string;
            role: string;
            state: components["schemas"]["TaskState"];
            /** @description the framework's own id for the task */
            taskId: string;
            updatedAt: string;
        };
        TaskLogsDto: {
            /** @description the task's stderr, relative to the sandbox */
            stderr: string;
            /** @description the task's stdout, relative to the sandbox */
            stdout: string;
        };
        TaskPageDto: {
            items: components["schemas"]["TaskDto"][];
            limit: number;
            offset: number;
            /** @description matches, counted up to offset + 10,000 */
            total: number;
            /** @description true when counting stopped at offset + 10,000 matches: there are more than `total` */
            totalCapped: boolean;
        };
        /** @enum {string} */
        TaskState: "STAGING" | "STARTING" | "RUNNING" | "KILLING" | "FINISHED" | "FAILED" | "KILLED" | "LOST" | "ERROR" | "DROPPED" | "UNREACHABLE" | "GONE" | "GONE_BY_OPERATOR" | "UNKNOWN";
        TaskStatusDto: {
            /** @description when the framework acknowledged it */
            acknowledgedAt: string | null;
            at: string;
            message: string | null;
            reason: string | null;
            source: string;
            state: components["schemas"]["TaskState"];
        };
        TokenDto: {
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt: string | null;
            /** Format: uuid */
            id: string;
            /** Format: date-time */
            lastUsedAt: string | null;
            name: string;
            principal: string;
            /** Format: date-time */
            revokedAt: string | null;
        };
        UnavailabilityDto: {
            /** @description seconds; absent or null: until maintenance is stopped */
            durationSeconds?: number | null;
            /** @example 2026-12-01T02:00:00Z */
            start: string;
        };
        UpdateQuotaDto: {
            /**
             * @description accept guarantees beyond the cluster capacity
             * @default false
             */
            force: boolean;
            quotas: components["schemas"]["QuotaInputDto"][];
        };
        UpdateWeightsDto: {
            weights: components["schemas"]["WeightDto"][];
        };
        VolumeDto: {
            /** @description where it appears in the container */
            containerPath: string;
            /** @enum {string} */
            mode: "RW" | "RO";
            source: components["schemas"]["VolumeSourceDto"];
        };
        VolumeSourceDto: {
            /** @description HOST_PATH: an absolute path on the agent (one its configuration allows); SANDBOX_PATH: relative to the sandbox */
            path: string;
            /**
             * @description SANDBOX_PATH: the task's own sandbox, or its task group's
             * @enum {string}
             */
            sandboxType?: "SELF" | "PARENT";
            /** @enum {string} */
            type: "HOST_PATH" | "SANDBOX_PATH";
        };
        WeightDto: {
            /** @example eng */
            role: string;
            /** @example 2 */
            weight: number;
        };
        WhatIfRequestDto: {
            /** @description The change to try. Every field is optional: weights {role: weight}; quotas {role: {guarantees, limits} | null}; addAgents [{hostname, resources, count}]; removeAgents [id or hostname]; addFrameworks [{id, roles, capabilities}]; removeFrameworks [id]; demand {frameworkId: quantities it would hold at most} */
            change: {
                addAgents?: {
                    count?: number;
                    hostname: string;
                    /** @description Mesos text ("cpus:8;mem:16384"), a shorthand object or resource entries */
                    resources: string | Record<string, never> | Record<string, never>[];
                }[];
                addFrameworks?: {
                    capabilities?: string[];
                    id: string;
                    roles: string[];
                }[];
                demand?: {
                    [key: string]: {
                        [key: string]: number;
                    };
                };
                quotas?: {
                    [key: string]: {
                        /**
                         * @example {
                         *       "cpus": 4,
                         *       "mem": 8192
                         *     }
                         */
                        guarantees: {
                            [key: string]: number;
                        };
                        /**
                         * @example {
                         *       "cpus": 4,
                         *       "mem": 8192
                         *     }
                         */
                        limits?: {
                            [key: string]: number;
                        };
                    } | null;
                };
                removeAgents?: string[];
                removeFrameworks?: string[];
                /**
                 * @example {
                 *       "eng": 2
                 *     }
                 */
                weights?: {
                    [key: string]: number;
                };
            };
            /**
             * @description allocation cycles to predict (1 to 10)
             * @default 3
             */
            cycles: number;
            /**
             * @description also return the snapshot as a scenario file (for `arbiter simulate`)
             * @default false
             */
            scenario: boolean;
        };
        WhatIfResultDto: {
            /** @description hostnames by agent id (what-if agents have ids what-if:<hostname>) */
            agents: {
                [key: string]: string;
            };
            /** @description when the snapshot of the live allocator was taken */
            at: string;
            /** @description the next cycles as the cluster is */
            baseline: components["schemas"]["SimulatedCycleDto"][];
            /** @description the next cycles with the change */
            changed: components["schemas"]["SimulatedCycleDto"][];
            /** @description cycles predicted */
            cycles: number;
            /** @description names by framework id */
            frameworks: {
                [key: string]: string;
            };
            /** @description the snapshot as an allocator scenario (when asked for) */
            scenario?: {
                [key: string]: unknown;
            };
        };
        WhitelistChangeDto: {
            /**
             * @description hostnames to whitelist (nothing changes for them while there is no whitelist)
             * @example [
             *       "node-3"
             *     ]
             */
            add?: string[];
            /**
             * @description hostnames to take off the whitelist; with no whitelist set, this sets one: every present agent (not GONE) but these
             * @example [
             *       "node-1"
             *     ]
             */
            remove?: string[];
        };
        WhitelistDto: {
            /**
             * @description null: every agent may be offered; []: none may
             * @example [
             *       "node-1",
             *       "node-2"
             *     ]
             */
            hostnames: string[] | null;
        };
        WhoAmIDto: {
            kind: components["schemas"]["PrincipalKind"];
            /**
             * @description the principal the token belongs to
             * @example admin
             */
            principal: string;
        };
        WindowDto: {
            machines: components["schemas"]["MachineDto"][];
            unavailability: components["schemas"]["UnavailabilityDto"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    Acls_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AclsDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Acls_replace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description ACLs in Mesos's JSON format, e.g. {"permissive": false, "update_quotas": [{"principals": {"values": ["ops"]}, "roles": {"type": "ANY"}}]} */
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AclsDto"];
                };
            };
            /** @description VALIDATION_FAILED, ACLS_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Agents_list: {
        parameters: {
            query?: {
                activated?: "true" | "false";
                /** @description NONE: not draining */
                drainState?: "NONE" | "DRAINING" | "DRAINED";
                /** @description substring of the hostname (case-insensitive) */
                hostname?: string;
                limit?: number;
                offset?: number;
                /** @description field to sort by; '-' for descending */
                sort?: "hostname" | "-hostname" | "firstSeenAt" | "-firstSeenAt" | "lastSeenAt" | "-lastSeenAt" | "status" | "-status";
                status?: components["schemas"]["AgentStatus"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Agents_get: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentViewDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Agents_deactivate: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentViewDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_GONE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Agents_drain: {
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
                "application/json": components["schemas"]["DrainAgentDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentViewDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_GONE, AGENT_ALREADY_DRAINING */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Agents_reactivate: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentViewDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_GONE, AGENT_STILL_DRAINING */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    History_list: {
        parameters: {
            query?: {
                /** @description cycles that offered this agent's resources */
                agentId?: string;
                /** @description cycles that offered to this framework */
                frameworkId?: string;
                /** @description cycles at or after this time (ISO 8601) */
                from?: string;
                limit?: number;
                offset?: number;
                /** @description cycles that offered to this role */
                role?: string;
                /** @description cycles before this time (ISO 8601) */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CyclePageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    History_get: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CycleDetailDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description CYCLE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    History_export: {
        parameters: {
            query: {
                format: "csv" | "json";
                from?: string;
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description CSV: one line per offer (cycles without offers on a line of their own); JSON: cycles with offers and shares */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                    "text/csv": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                    "text/csv": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                    "text/csv": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    History_shares: {
        parameters: {
            query: {
                /** @description one role path or framework id; absent: all */
                client?: string;
                from?: string;
                kind: "ROLE" | "FRAMEWORK";
                /** @description most points returned (newest kept) */
                points?: number;
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SharePointDto"][];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Audit_list: {
        parameters: {
            query?: {
                /** @description action, e.g. 'quota.update', or a prefix such as 'agent.*' */
                action?: string;
                /** @description principal name, e.g. 'admin' */
                actor?: string;
                limit?: number;
                offset?: number;
                /** @description entries at or after this time (ISO 8601) */
                since?: string;
                targetId?: string;
                /** @description e.g. 'agent', 'role', 'reservation', 'whitelist', 'maintenance' */
                targetType?: string;
                /** @description entries before this time (ISO 8601) */
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditPageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Cluster_summary: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ClusterSummaryDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Executors_list: {
        parameters: {
            query?: {
                agentId?: string;
                frameworkId?: string;
                limit?: number;
                offset?: number;
                state?: components["schemas"]["ExecutorState"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExecutorPageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Frameworks_list: {
        parameters: {
            query?: {
                limit?: number;
                offset?: number;
                /** @description frameworks subscribed to this role */
                role?: string;
                state?: components["schemas"]["FrameworkState"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FrameworkPageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Frameworks_get: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FrameworkDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FRAMEWORK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Explain_explain: {
        parameters: {
            query?: {
                /** @description recent cycles to look at */
                cycles?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ExplainDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FRAMEWORK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Frameworks_teardown: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FrameworkDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FRAMEWORK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description NO_LEADER */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Maintenance_schedule: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Maintenance_replace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScheduleDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleDto"];
                };
            };
            /** @description VALIDATION_FAILED, MAINTENANCE_DUPLICATE_MACHINE */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description MAINTENANCE_DOWN_MACHINE_REMOVED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Maintenance_start: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MachinesDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceStatusDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description MAINTENANCE_MACHINE_NOT_SCHEDULED, MAINTENANCE_MACHINE_ALREADY_DOWN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Maintenance_status: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceStatusDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Maintenance_stop: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MachinesDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceStatusDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description MAINTENANCE_MACHINE_NOT_DOWN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Offers_list: {
        parameters: {
            query?: {
                agentId?: string;
                frameworkId?: string;
                limit?: number;
                offset?: number;
                state?: components["schemas"]["OfferState"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OfferPageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Principals_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalDto"][];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Principals_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreatePrincipalDto"];
            };
        };
        responses: {
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description PRINCIPAL_EXISTS */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Principals_disable: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PrincipalDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description PRINCIPAL_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Principals_tokens: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenDto"][];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description PRINCIPAL_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Principals_issue: {
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
                "application/json": components["schemas"]["CreateTokenDto"];
            };
        };
        responses: {
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedTokenDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description PRINCIPAL_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description PRINCIPAL_DISABLED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Roles_quotas: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuotaDto"][];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Roles_updateQuotas: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateQuotaDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QuotaDto"][];
                };
            };
            /** @description VALIDATION_FAILED, ROLE_REPEATED, QUOTA_GUARANTEE_EXCEEDS_LIMIT, QUOTA_HIERARCHY_VIOLATION */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description QUOTA_EXCEEDS_CAPACITY */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Roles_removeQuota: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                role: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description QUOTA_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Reservations_list: {
        parameters: {
            query?: {
                agentId?: string;
                limit?: number;
                offset?: number;
                role?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationPageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Reservations_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateReservationDto"];
            };
        };
        responses: {
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_GONE, RESERVATION_INSUFFICIENT_RESOURCES */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Reservations_get: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description RESERVATION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Reservations_remove: {
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
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description RESERVATION_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description RESERVATION_IN_USE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Roles_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoleDto"][];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Sessions_start: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedTokenDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Sessions_end: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description NOT_A_SESSION */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    WhatIf_run: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WhatIfRequestDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhatIfResultDto"];
                };
            };
            /** @description VALIDATION_FAILED, SIMULATION_TOO_LARGE */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description SIMULATION_BUSY */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description NO_LEADER */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Tasks_list: {
        parameters: {
            query?: {
                agentId?: string;
                frameworkId?: string;
                limit?: number;
                offset?: number;
                /** @description the reason of the status that brought the task to its current state (REASON_CONTAINER_PREEMPTED: evicted by its agent's QoS controller) */
                reason?: string;
                state?: components["schemas"]["TaskState"];
                /** @description tasks updated at or after this time (ISO 8601) */
                updatedSince?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskPageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Tasks_get: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description TASK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Sandboxes_browse: {
        parameters: {
            query?: {
                /** @description a directory in the task's sandbox, relative to it (default: the sandbox itself) */
                path?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilesBrowseDto"];
                };
            };
            /** @description VALIDATION_FAILED, SANDBOX_PATH_INVALID */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description TASK_NOT_FOUND, SANDBOX_FILE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description SANDBOX_UNREACHABLE, NO_LEADER */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Sandboxes_download: {
        parameters: {
            query: {
                /** @description a file in the task's sandbox, relative to it */
                path: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description VALIDATION_FAILED, SANDBOX_PATH_INVALID, SANDBOX_NOT_A_FILE */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": components["schemas"]["ErrorDto"];
                };
            };
            /** @description TASK_NOT_FOUND, SANDBOX_FILE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": components["schemas"]["ErrorDto"];
                };
            };
            /** @description SANDBOX_UNREACHABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Sandboxes_read: {
        parameters: {
            query: {
                /** @description how `data` carries the bytes (base64: exactly, for binary files or byte-exact followers) */
                encoding?: "utf8" | "base64";
                /** @description bytes to read (at most 1048576, the default) */
                length?: number;
                /** @description where to read from; -1 reads nothing and answers the file's size as the offset */
                offset?: number;
                /** @description a file in the task's sandbox, relative to it (e.g. stdout) */
                path: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FilesReadDto"];
                };
            };
            /** @description VALIDATION_FAILED, SANDBOX_PATH_INVALID, SANDBOX_NOT_A_FILE */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description TASK_NOT_FOUND, SANDBOX_FILE_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description SANDBOX_UNREACHABLE, NO_LEADER */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Tasks_kill: {
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
                "application/json": components["schemas"]["KillTaskDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description TASK_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description NO_LEADER */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Principals_revoke: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description TOKEN_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Volumes_list: {
        parameters: {
            query?: {
                agentId?: string;
                limit?: number;
                offset?: number;
                role?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersistentVolumePageDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Volumes_create: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreatePersistentVolumeDto"];
            };
        };
        responses: {
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersistentVolumeDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AGENT_GONE, VOLUME_EXISTS, VOLUME_INSUFFICIENT_DISK */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description VOLUME_AGENT_FAILED */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description VOLUME_AGENT_UNREACHABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Volumes_get: {
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
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersistentVolumeDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description VOLUME_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Volumes_destroy: {
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
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description VOLUME_NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description VOLUME_IN_USE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description VOLUME_AGENT_FAILED */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description VOLUME_AGENT_UNREACHABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Roles_weights: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WeightDto"][];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Roles_updateWeights: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWeightsDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WeightDto"][];
                };
            };
            /** @description VALIDATION_FAILED, ROLE_REPEATED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Whitelist_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhitelistDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Whitelist_replace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WhitelistDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhitelistDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Whitelist_change: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WhitelistChangeDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhitelistDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Auth_whoami: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhoAmIDto"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description AUTH_TOKEN_MISSING, AUTH_TOKEN_INVALID */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDto"];
                };
            };
        };
    };
    Health_health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthDto"];
                };
            };
            /** @description the database does not answer */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthDto"];
                };
            };
        };
    };
    Health_metricsText: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
        };
    };
}
