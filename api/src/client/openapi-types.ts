// Generated from docs/openapi.json by `node api/src/openapi/generate.ts`: do not edit.

export interface paths {
    "/v1/key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Describe the calling API key: id, account, scopes, expiry, mode
         * @description Describe the calling API key: id, account, scopes, expiry, mode
         */
        get: operations["getCallingKey"];
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
        /**
         * List the account's keys, newest first: ids, names, scopes, dates, owner; never a secret
         * @description List the account's keys, newest first: ids, names, scopes, dates, owner; never a secret
         */
        get: operations["listKeys"];
        put?: never;
        /**
         * Create a key with at most the calling key's scopes; the full key is shown once
         * @description Create a key with at most the calling key's scopes; the full key is shown once
         */
        post: operations["createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{keyId}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a key by its id: refused from the next request on, its unsent mail failed
         * @description Revoke a key by its id: refused from the next request on, its unsent mail failed
         */
        post: operations["revokeKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's sending state, limits, usage and bounce and complaint rates
         * @description The account's sending state, limits, usage and bounce and complaint rates
         */
        get: operations["getAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused account: new sends are accepted and held mail leaves
         * @description Resume a paused account: new sends are accepted and held mail leaves
         */
        post: operations["resumeAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send one email
         * @description Send one email
         */
        post: operations["sendEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/send/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send up to 100 emails; results in request order
         * @description Send up to 100 emails; results in request order
         */
        post: operations["sendBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/emails/{id}/attachments/{index}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download one attachment of an email
         * @description Download one attachment of an email
         */
        get: operations["getEmailAttachment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/emails/{id}/raw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The email's message as built for delivery, without DKIM signature, as message/rfc822
         * @description The message the deliver task builds for this email, from the same composer, whatever the email's status (a scheduled or queued email as its first attempt will build it): the same header fields (Message-ID, Date, X-Mailroom-Category, custom headers such as List-Unsubscribe), MIME structure, boundaries and bodies as every attempt hands over. An SMTP submission is its client's message with the Message-ID and Date Mailroom adds when the client left them out. What the delivered copy has and this one lacks: the DKIM-Signature fields, made at each handover with the domain's current key (`X-Mailroom-Dkim: omitted` says so), the Received and Return-Path fields the receiving servers add, and, for a next hop without 8BITMIME, the 7-bit form.
         */
        get: operations["getEmailRaw"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/emails": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List emails, newest first
         * @description List emails, newest first
         */
        get: operations["listEmails"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/emails/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one email and its timeline
         * @description Read one email and its timeline
         */
        get: operations["getEmail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Reschedule an email that has not left
         * @description Reschedule an email that has not left
         */
        patch: operations["rescheduleEmail"];
        trace?: never;
    };
    "/v1/emails/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel an email that has not left
         * @description Cancel an email that has not left
         */
        post: operations["cancelEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's delivery figures over a period, per hour or day, optionally split
         * @description The account's delivery figures over a period, per hour or day, optionally split
         */
        get: operations["getStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/stats/transit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How the account's mail met each receiving domain: TLS, deferrals, shaping
         * @description How the account's mail met each receiving domain: TLS, deferrals, shaping
         */
        get: operations["getTransit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's templates
         * @description List the account's templates
         */
        get: operations["listTemplates"];
        put?: never;
        /**
         * Create a template (version 1)
         * @description Create a template (version 1)
         */
        post: operations["createTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a template with its current version
         * @description Read a template with its current version
         */
        get: operations["getTemplate"];
        put?: never;
        post?: never;
        /**
         * Delete a template and all its versions
         * @description Delete a template and all its versions
         */
        delete: operations["deleteTemplate"];
        options?: never;
        head?: never;
        /**
         * Change a template; a content change makes a new version
         * @description Change a template; a content change makes a new version
         */
        patch: operations["updateTemplate"];
        trace?: never;
    };
    "/v1/templates/{id}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one stored version of a template
         * @description Read one stored version of a template
         */
        get: operations["getTemplateVersion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/templates/{id}/render": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Render a template with variables, without sending
         * @description Render a template with variables, without sending
         */
        post: operations["renderTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's domains
         * @description List the account's domains
         */
        get: operations["listDomains"];
        put?: never;
        /**
         * Add a sending domain: makes its DKIM keys and answers the DNS records to publish
         * @description Add a sending domain: makes its DKIM keys and answers the DNS records to publish
         */
        post: operations["createDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domain}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a domain with its records and their verification
         * @description Read a domain with its records and their verification
         */
        get: operations["getDomain"];
        put?: never;
        post?: never;
        /**
         * Delete a domain and its keys
         * @description Delete a domain and its keys
         */
        delete: operations["deleteDomain"];
        options?: never;
        head?: never;
        /**
         * Change a domain's settings: its DKIM rotation interval
         * @description Change a domain's settings: its DKIM rotation interval
         */
        patch: operations["updateDomain"];
        trace?: never;
    };
    "/v1/domains/{domain}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check the domain's DNS records now and answer the updated domain
         * @description Check the domain's DNS records now and answer the updated domain
         */
        post: operations["verifyDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domain}/dkim/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the DKIM keys now: a new key under a new selector to publish; it signs once DNS serves it
         * @description Rotate the DKIM keys now: a new key under a new selector to publish; it signs once DNS serves it
         */
        post: operations["rotateDomainDkim"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{domain}/dmarc": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the DMARC pass rates and failing sources receivers reported for the domain
         * @description Read the DMARC pass rates and failing sources receivers reported for the domain
         */
        get: operations["getDomainDmarc"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List suppressed addresses, alphabetically
         * @description List suppressed addresses, alphabetically
         */
        get: operations["listSuppressions"];
        put?: never;
        /**
         * Add an address by hand (reason manual); an address already listed keeps its entry (200)
         * @description Add an address by hand (reason manual); an address already listed keeps its entry (200)
         */
        post: operations["addSuppression"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/suppressions/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one suppressed address
         * @description Read one suppressed address
         */
        get: operations["getSuppression"];
        put?: never;
        post?: never;
        /**
         * Remove an address from the list so mail to it is attempted again
         * @description Remove an address from the list so mail to it is attempted again
         */
        delete: operations["deleteSuppression"];
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
        /**
         * List the account's webhook endpoints
         * @description List the account's webhook endpoints
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Add a webhook endpoint; its signing secret is shown once
         * @description Add a webhook endpoint; its signing secret is shown once
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/event-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the event types an endpoint can subscribe to
         * @description List the event types an endpoint can subscribe to
         */
        get: operations["listWebhookEventTypes"];
        put?: never;
        post?: never;
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
        /**
         * Read a webhook endpoint
         * @description Read a webhook endpoint
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Delete a webhook endpoint
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint's URL, events, description or state
         * @description Change a webhook endpoint's URL, events, description or state
         */
        patch: operations["updateWebhook"];
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
        /**
         * Make a new signing secret; the old ones keep signing for an overlap
         * @description Make a new signing secret; the old ones keep signing for an overlap
         */
        post: operations["rotateWebhookSecret"];
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
        /**
         * List an endpoint's deliveries, newest first
         * @description List an endpoint's deliveries, newest first
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{deliveryId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one delivery with its attempts
         * @description Read one delivery with its attempts
         */
        get: operations["getWebhookDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{deliveryId}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver an event again
         * @description Deliver an event again
         */
        post: operations["replayWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dev-inbox/chaos": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's chaos rules for its sandbox mail
         * @description The account's chaos rules for its sandbox mail
         */
        get: operations["getDevInboxChaos"];
        /**
         * Replace the account's chaos rules: SMTP failures injected into its sandbox mail
         * @description Replace the account's chaos rules: SMTP failures injected into its sandbox mail
         */
        put: operations["putDevInboxChaos"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dev-inbox/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's captured messages, newest first; with `wait`, answer as soon as one matches
         * @description Filters: `to` (an envelope recipient, any case) and `subject` (contains, any case). With `wait` (seconds, at most 30) the call is a long poll: it answers as soon as at least one message matches, else with an empty list when the time is up.
         */
        get: operations["listDevInboxMessages"];
        put?: never;
        post?: never;
        /**
         * Delete the account's captured messages: those matching `to` and `subject`, or all
         * @description Delete the account's captured messages: those matching `to` and `subject`, or all
         */
        delete: operations["clearDevInbox"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dev-inbox/messages/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one captured message: headers, HTML, text, attachments
         * @description Read one captured message: headers, HTML, text, attachments
         */
        get: operations["getDevInboxMessage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dev-inbox/messages/{id}/raw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The captured message exactly as received, as message/rfc822
         * @description The captured message exactly as received, as message/rfc822
         */
        get: operations["getDevInboxMessageRaw"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dev-inbox/messages/{id}/attachments/{index}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download one attachment of a captured message
         * @description Download one attachment of a captured message
         */
        get: operations["getDevInboxAttachment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's audit trail: who changed what, when and from where, newest first
         * @description List the account's audit trail: who changed what, when and from where, newest first
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the actions the audit trail records (the values of the list's `action` filter)
         * @description List the actions the audit trail records (the values of the list's `action` filter)
         */
        get: operations["listAuditActions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "email.scheduled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The email.scheduled event
         * @description Sent to every enabled endpoint subscribed to `email.scheduled`; retried with backoff until a 2xx.
         */
        post: operations["onEmailScheduled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.queued": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The email.queued event
         * @description Sent to every enabled endpoint subscribed to `email.queued`; retried with backoff until a 2xx.
         */
        post: operations["onEmailQueued"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.delivered": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The email.delivered event
         * @description Sent to every enabled endpoint subscribed to `email.delivered`; retried with backoff until a 2xx.
         */
        post: operations["onEmailDelivered"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.deferred": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The email.deferred event
         * @description Sent to every enabled endpoint subscribed to `email.deferred`; retried with backoff until a 2xx.
         */
        post: operations["onEmailDeferred"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.bounced": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The email.bounced event
         * @description Sent to every enabled endpoint subscribed to `email.bounced`; retried with backoff until a 2xx.
         */
        post: operations["onEmailBounced"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The email.failed event
         * @description Sent to every enabled endpoint subscribed to `email.failed`; retried with backoff until a 2xx.
         */
        post: operations["onEmailFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.canceled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The email.canceled event
         * @description Sent to every enabled endpoint subscribed to `email.canceled`; retried with backoff until a 2xx.
         */
        post: operations["onEmailCanceled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "email.complained": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The email.complained event
         * @description Sent to every enabled endpoint subscribed to `email.complained`; retried with backoff until a 2xx.
         */
        post: operations["onEmailComplained"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "domain.verified": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The domain.verified event
         * @description Sent to every enabled endpoint subscribed to `domain.verified`; retried with backoff until a 2xx.
         */
        post: operations["onDomainVerified"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "domain.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The domain.failed event
         * @description Sent to every enabled endpoint subscribed to `domain.failed`; retried with backoff until a 2xx.
         */
        post: operations["onDomainFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "domain.dkim_rotation_started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The domain.dkim_rotation_started event
         * @description Sent to every enabled endpoint subscribed to `domain.dkim_rotation_started`; retried with backoff until a 2xx.
         */
        post: operations["onDomainDkim_rotation_started"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "domain.dkim_rotated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The domain.dkim_rotated event
         * @description Sent to every enabled endpoint subscribed to `domain.dkim_rotated`; retried with backoff until a 2xx.
         */
        post: operations["onDomainDkim_rotated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "domain.dkim_key_withdrawn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The domain.dkim_key_withdrawn event
         * @description Sent to every enabled endpoint subscribed to `domain.dkim_key_withdrawn`; retried with backoff until a 2xx.
         */
        post: operations["onDomainDkim_key_withdrawn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "domain.check_failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The domain.check_failed event
         * @description Sent to every enabled endpoint subscribed to `domain.check_failed`; retried with backoff until a 2xx.
         */
        post: operations["onDomainCheck_failed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "account.paused": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The account.paused event
         * @description Sent to every enabled endpoint subscribed to `account.paused`; retried with backoff until a 2xx.
         */
        post: operations["onAccountPaused"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "account.resumed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The account.resumed event
         * @description Sent to every enabled endpoint subscribed to `account.resumed`; retried with backoff until a 2xx.
         */
        post: operations["onAccountResumed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Error: {
            /**
             * @description Machine-readable code
             * @enum {string}
             */
            error: "missing_api_key" | "invalid_api_key" | "api_key_revoked" | "api_key_expired" | "insufficient_scope" | "validation_error" | "invalid_idempotency_key" | "idempotency_key_mismatch" | "not_found" | "conflict" | "managed_by_operator" | "domain_not_verified" | "domain_not_allowed" | "template_render_error" | "rate_limit_exceeded" | "quota_exceeded" | "sending_paused" | "category_not_allowed" | "sign_in_failed" | "sign_in_refused" | "payload_too_large" | "unsupported_media_type" | "headers_too_large" | "request_timeout" | "https_required" | "service_unavailable" | "internal_error";
            /** @description What went wrong and what to do next */
            message: string;
        };
        SendRequest: {
            /** @description `Display Name <address>` or an address; IDN domains accepted */
            from: string;
            /** @description One recipient or an array; at most 50 recipients across to, cc and bcc */
            to: string | string[];
            /** @description Carbon-copy recipients */
            cc?: string | string[];
            /** @description Blind carbon-copy recipients (never shown in the message) */
            bcc?: string | string[];
            /** @description Reply-To addresses */
            replyTo?: string | string[];
            /** @description Required unless a template is given */
            subject?: string;
            /** @description HTML body; give html, text or both */
            html?: string;
            /** @description Plain-text body */
            text?: string;
            /** @description Default `transactional` */
            category?: string;
            /** @description Custom headers; CR/LF and headers Mailroom sets itself are refused */
            headers?: {
                [key: string]: string;
            };
            attachments?: {
                filename: string;
                /** @description Base64 (RFC 4648), no line breaks */
                content: string;
                /** @description Default application/octet-stream */
                contentType?: string;
                /** @description For inline images: `cid:<contentId>` */
                contentId?: string;
            }[];
            tags?: {
                name: string;
                value: string;
            }[];
            /** @description A saved template to render (instead of subject/html/text); give id or name */
            template?: {
                id?: string;
                name?: string;
                version?: number;
                /** @description Values the template reads; the whole body nests at most 32 levels deep */
                variables?: {
                    [key: string]: unknown;
                };
            };
            /** @description Makes a retry safe; also accepted as Idempotency-Key */
            idempotencyKey?: string;
            /** @description RFC 3339 time, up to 30 days ahead */
            scheduledAt?: string;
            /** @description REQUIRETLS (RFC 8689): deliver only over TLS with a verified certificate (MTA-STS, or one valid for the MX or relay name); otherwise the email is deferred and then fails with that reason. Default false */
            requireTls?: boolean;
        };
        SendResult: {
            /** @enum {string} */
            status: "queued" | "duplicate" | "scheduled";
            messageId: string;
        };
        BatchResult: {
            data: {
                index?: number;
                /** @enum {string} */
                status?: "queued" | "duplicate" | "scheduled" | "error";
                messageId?: string;
                error?: string;
                message?: string;
            }[];
        };
        EmailSummary: {
            id: string;
            /** @enum {string} */
            status: "scheduled" | "queued" | "sending" | "delivered" | "deferred" | "bounced" | "failed" | "canceled";
            /**
             * @description The door the email came through: the HTTP API or SMTP submission (ports 587/465)
             * @enum {string}
             */
            source: "api" | "smtp";
            /** @description Captured in the account's dev inbox instead of sent: a sandbox key's or account's email */
            sandbox: boolean;
            /** @description Every recipient is a mailbox simulator address (MAILROOM_SIMULATOR_DOMAIN): nothing left */
            simulated: boolean;
            failureReason: string | null;
            from: string;
            to: string[];
            cc: string[];
            bcc: string[];
            replyTo: string[];
            subject: string;
            category: string;
            tags: {
                name: string;
                value: string;
            }[];
            /** Format: date-time */
            scheduledAt: string | null;
            attempts: number;
            lastSmtpResponse: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        Email: {
            id: string;
            /** @enum {string} */
            status: "scheduled" | "queued" | "sending" | "delivered" | "deferred" | "bounced" | "failed" | "canceled";
            /**
             * @description The door the email came through: the HTTP API or SMTP submission (ports 587/465)
             * @enum {string}
             */
            source: "api" | "smtp";
            /** @description Captured in the account's dev inbox instead of sent: a sandbox key's or account's email */
            sandbox: boolean;
            /** @description Every recipient is a mailbox simulator address (MAILROOM_SIMULATOR_DOMAIN): nothing left */
            simulated: boolean;
            failureReason: string | null;
            from: string;
            to: string[];
            cc: string[];
            bcc: string[];
            replyTo: string[];
            subject: string;
            category: string;
            tags: {
                name: string;
                value: string;
            }[];
            /** Format: date-time */
            scheduledAt: string | null;
            attempts: number;
            lastSmtpResponse: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            messageIdHeader: string;
            html: string | null;
            text: string | null;
            headers: {
                [key: string]: string;
            };
            /** @description Each recipient's outcome so far, with the next hop's SMTP reply; empty before the first attempt */
            recipients: {
                address: string;
                /** @enum {string} */
                status: "accepted" | "temporary" | "permanent";
                code: number | null;
                response: string | null;
            }[];
            attachments: {
                filename: string;
                contentType: string;
                contentId: string | null;
                size: number;
            }[];
            events: {
                type: string;
                /** Format: date-time */
                at: string;
                detail: {
                    [key: string]: unknown;
                };
            }[];
        };
        TemplateSummary: {
            id: string;
            name: string;
            description: string | null;
            /** @enum {string} */
            managedBy: "api" | "operator";
            /** @description The current version */
            version: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        Template: {
            id: string;
            name: string;
            description: string | null;
            /** @enum {string} */
            managedBy: "api" | "operator";
            /** @description The current version */
            version: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description For a template the operator manages: the resource that declares it, `Template/<name>` in the account's namespace */
            managedByResource: string | null;
            subject: string;
            html: string | null;
            text: string | null;
            /** @description JSON Schema (draft-07) the variables of a render must satisfy; null accepts any object. Its `examples` (objects the schema accepts, checked when saved) are what a preview starts from */
            variables: {
                [key: string]: unknown;
            } | null;
            /** @description Variables to preview this version with: the first of its schema's `examples`, else a value for each property the schema names and each variable the parts always read */
            exampleVariables: {
                [key: string]: unknown;
            };
            versions: {
                version: number;
                /** Format: date-time */
                createdAt: string;
            }[];
        };
        TemplateVersion: {
            templateId: string;
            version: number;
            subject: string;
            html: string | null;
            text: string | null;
            /** @description JSON Schema (draft-07) the variables of a render must satisfy; null accepts any object. Its `examples` (objects the schema accepts, checked when saved) are what a preview starts from */
            variables: {
                [key: string]: unknown;
            } | null;
            /** @description Variables to preview this version with: the first of its schema's `examples`, else a value for each property the schema names and each variable the parts always read */
            exampleVariables: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            createdAt: string;
        };
        RenderedTemplate: {
            subject: string;
            html?: string;
            text?: string;
            templateId: string;
            version: number;
        };
        Domain: {
            id: string;
            name: string;
            /** @enum {string} */
            status: "pending" | "verified" | "failed" | "temporary_failure";
            /** @description Why the domain is not verified when no single record explains it */
            statusReason?: string | null;
            /** @description The envelope sender (Return-Path) domain */
            returnPathDomain: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            lastCheckedAt?: string | null;
            /** Format: date-time */
            verifiedAt?: string | null;
            /**
             * Format: date-time
             * @description When the background recheck looks at the domain again
             */
            nextCheckAt?: string;
            /** @description Public halves only; private keys never leave Mailroom */
            dkimKeys: {
                selector: string;
                /** @enum {string} */
                algorithm: "rsa" | "ed25519";
                /** @description The base64 p= value */
                publicKey: string;
                /** Format: date-time */
                createdAt: string;
                /**
                 * @description pending: publish it, it signs once DNS serves it; active: signing; retiring: keep it published until withdrawAt, then remove it
                 * @enum {string}
                 */
                state: "pending" | "active" | "retiring";
                /**
                 * Format: date-time
                 * @description A pending key: since when DNS serves it
                 */
                servedAt?: string | null;
                /**
                 * Format: date-time
                 * @description When it started signing
                 */
                activatedAt?: string | null;
                /**
                 * Format: date-time
                 * @description A retiring key: when its selector is withdrawn
                 */
                withdrawAt?: string | null;
            }[];
            dkimRotation: {
                /** @description Rotate the DKIM keys this many days after they started signing (default 180); 0: never */
                intervalDays: number;
                /**
                 * Format: date-time
                 * @description When scheduled rotation starts the next one
                 */
                nextRotationAt: string | null;
                /**
                 * Format: date-time
                 * @description A rotate-now request not yet started
                 */
                requestedAt: string | null;
            };
            records: {
                /**
                 * @description mx: the bounce domain's MX, where asynchronous bounces and complaints are received
                 * @enum {string}
                 */
                purpose: "dkim" | "spf" | "mx" | "dmarc";
                /** @enum {string} */
                type: "TXT" | "MX";
                /** @description Fully qualified, without the trailing dot */
                name: string;
                /** @description The whole TXT value, as verifiers read it; for MX, `<priority> <host>` */
                value: string;
                /** @description The value split into the ≤255-byte character-strings a TXT record is made of */
                strings: string[];
                /** @description The record as a BIND zone-file line */
                zoneFileLine: string;
                /** @description Required records decide verification; the others are advice, checked and reported */
                required: boolean;
                /** @enum {string} */
                status: "pending" | "verified" | "failed" | "temporary_failure";
                /** @description What was expected and what was found */
                reason?: string | null;
                /** Format: date-time */
                lastCheckedAt?: string | null;
            }[];
            /** @description Compliance checks, re-evaluated at each verification (hourly, and on POST …/verify): SPF, DKIM, DMARC, BounceMX, ReverseDNS (direct mode), TLS (the relay's STARTTLS); empty before the first one */
            checks: {
                /** @enum {string} */
                name: "SPF" | "DKIM" | "DMARC" | "BounceMX" | "ReverseDNS" | "TLS";
                /**
                 * @description unknown: not decidable now (a DNS outage, not configured, not applicable)
                 * @enum {string}
                 */
                status: "pass" | "fail" | "unknown";
                reason: string;
                /** Format: date-time */
                checkedAt: string;
                /**
                 * Format: date-time
                 * @description Since when the check has had this status
                 */
                since: string;
            }[];
            /** @description Bounce and complaint rates of the domain's mail over 24 h and 168 h (the reputation guard's, updated every minute); receivers' complaint lines are 0.1 % and 0.3 %; empty before the domain sent mail */
            reputation: {
                windowHours: number;
                sent: number;
                bounced: number;
                complained: number;
                bounceRate: number | null;
                complaintRate: number | null;
                /**
                 * @description Against the account's thresholds; low_volume: under the minimum volume, not judged
                 * @enum {string}
                 */
                level: "ok" | "low_volume" | "warn" | "pause";
            }[];
        };
        Suppression: {
            /** @description Lower-cased recipient address */
            address: string;
            /**
             * @description Why the address is suppressed: a permanent bounce (at handover or reported later), a spam complaint (ARF feedback report), or added by hand
             * @enum {string}
             */
            reason: "hard_bounce" | "complaint" | "manual";
            /** @description For a bounce, the receiver's reply; for a complaint, its feedback type; for manual, the note given */
            detail: string | null;
            /** @description The email whose bounce or complaint listed the address */
            sourceEmailId: string | null;
            /**
             * Format: date-time
             * @description Since when the address is suppressed
             */
            createdAt: string;
        };
        WebhookEndpoint: {
            id: string;
            /** @description The WebhookEndpoint resource's name (namespace: the account) when the operator manages it */
            name: string | null;
            url: string;
            events: string[];
            description: string | null;
            enabled: boolean;
            disabledReason: string | null;
            /** @enum {string} */
            managedBy: "api" | "operator";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        WebhookDelivery: {
            id: string;
            eventId: string;
            eventType: string;
            /** @enum {string} */
            state: "pending" | "succeeded" | "failed";
            attempts: number;
            /** Format: date-time */
            nextAttemptAt: string | null;
            lastStatusCode: number | null;
            lastError: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            deliveredAt: string | null;
        };
        WebhookDeliveryDetail: {
            id: string;
            eventId: string;
            eventType: string;
            /** @enum {string} */
            state: "pending" | "succeeded" | "failed";
            attempts: number;
            /** Format: date-time */
            nextAttemptAt: string | null;
            lastStatusCode: number | null;
            lastError: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            deliveredAt: string | null;
            attemptLog: {
                attempt: number;
                /** Format: date-time */
                at: string;
                durationMs: number;
                statusCode: number | null;
                responseExcerpt: string | null;
                error: string | null;
                /** Format: date-time */
                nextAttemptAt: string | null;
            }[];
        };
        /** @description The email, plus what the transition adds (e.g. `reason`, `smtpCode`) */
        EmailEventData: {
            /** Format: uuid */
            emailId: string;
            from: string;
            to: string[];
            subject: string | null;
            category: string;
            tags?: Record<string, never>[] | null;
        } & {
            [key: string]: unknown;
        };
        DomainEventData: {
            /** Format: uuid */
            domainId: string;
            domain: string;
            /** @enum {string} */
            status: "verified" | "failed";
            reason?: string | null;
            failedRecords?: string[] | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A DKIM rotation step: `pending` selectors to publish (rotation_started), the `active` and `retiring` ones with `withdrawAt` (rotated), the `withdrawn` ones (key_withdrawn); `compromised` on a key compromise */
        DkimRotationEventData: {
            /** Format: uuid */
            domainId: string;
            domain: string;
            pending?: components["schemas"]["DkimSelector"][];
            active?: components["schemas"]["DkimSelector"][];
            retiring?: components["schemas"]["DkimSelector"][];
            /** Format: date-time */
            withdrawAt?: string;
            withdrawn?: string[];
            compromised?: boolean;
        } & {
            [key: string]: unknown;
        };
        /** @description A compliance check of the domain that passed before and fails now */
        DomainCheckEventData: {
            /** Format: uuid */
            domainId: string;
            domain: string;
            /** @enum {string} */
            check: "SPF" | "DKIM" | "DMARC" | "BounceMX" | "ReverseDNS" | "TLS";
            reason: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description The account's sending was paused (by its reputation guard or by hand: `reason`) or resumed (`released`: the held emails given back to delivery) */
        AccountEventData: {
            account: string;
            by: string;
            reason?: string | null;
            released?: number;
        } & {
            [key: string]: unknown;
        };
        DkimSelector: {
            selector: string;
            /** @enum {string} */
            algorithm: "rsa" | "ed25519";
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id, also in the server's log line for it; quote it when asking for help. */
        "X-Request-Id": string;
        /** @description The quotas the request counted against (draft-ietf-httpapi-ratelimit-headers-10), e.g. `"key";q=500;w=1, "account";q=2000;w=1`. Sent once the key is proven. */
        "RateLimit-Policy": string;
        /** @description The quota closest to running out: `r` requests left, `t` seconds until the window resets, e.g. `"key";r=499;t=1`. Sent once the key is proven. */
        RateLimit: string;
        /** @description Seconds to wait before retrying (with the same idempotencyKey). */
        "Retry-After": number;
        /** @description The scheme to authenticate with: `Bearer realm="mailroom"`. */
        "WWW-Authenticate": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getCallingKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The key's id (safe to log) */
                        keyId: string;
                        account: string;
                        name: string | null;
                        scopes: ("send" | "domains" | "templates" | "webhooks" | "audit" | "keys")[];
                        /** Format: date-time */
                        expiresAt: string | null;
                        /**
                         * @description `sandbox`: what the key sends is captured into its account's dev inbox, never delivered
                         * @enum {string}
                         */
                        mode: "live" | "sandbox";
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listKeys: {
        parameters: {
            query?: {
                /** @description an integer from 1 to 100 (default 50) */
                limit?: number;
                /** @description Cursor: the last keyId of the previous page */
                after?: string;
                /** @description Only keys in this state */
                state?: "active" | "revoked" | "expired";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description The key's id: safe to log, names the key to revoke */
                            keyId: string;
                            name: string | null;
                            scopes: ("send" | "domains" | "templates" | "webhooks" | "audit" | "keys")[];
                            /**
                             * @description `sandbox`: what the key sends is captured into the account's dev inbox, never delivered
                             * @enum {string}
                             */
                            mode: "live" | "sandbox";
                            /** @enum {string} */
                            state: "active" | "revoked" | "expired";
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            expiresAt: string | null;
                            /**
                             * Format: date-time
                             * @description Refreshed about once an hour
                             */
                            lastUsedAt: string | null;
                            /** Format: date-time */
                            revokedAt: string | null;
                            /**
                             * @description Who made it: `mailroom keys`, the API (a person's sign-in included) or an ApiKey resource
                             * @enum {string}
                             */
                            managedBy: "cli" | "api" | "operator";
                            /** @description The person a sign-in minted the key for (ADR 0063); null for a machine's key */
                            owner: {
                                issuer: string;
                                subject: string;
                                email: string | null;
                            } | null;
                        }[];
                        /** @description Another page follows: pass the last keyId as `after` */
                        hasMore: boolean;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description At most the calling key's own scopes */
                    scopes: ("send" | "domains" | "templates" | "webhooks" | "audit" | "keys")[];
                    /**
                     * @description Lifetime from now, fixed at creation: 30, 90 or 365 days, or `never` (the default)
                     * @enum {string}
                     */
                    expires?: "30d" | "90d" | "365d" | "never";
                    /** @description A label to recognise it by */
                    name?: string | null;
                    /**
                     * @description Default: the calling key's; a sandbox key makes only sandbox keys
                     * @enum {string}
                     */
                    mode?: "live" | "sandbox";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The key's id: safe to log, names the key to revoke */
                        keyId: string;
                        name: string | null;
                        scopes: ("send" | "domains" | "templates" | "webhooks" | "audit" | "keys")[];
                        /**
                         * @description `sandbox`: what the key sends is captured into the account's dev inbox, never delivered
                         * @enum {string}
                         */
                        mode: "live" | "sandbox";
                        /** @enum {string} */
                        state: "active" | "revoked" | "expired";
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        expiresAt: string | null;
                        /**
                         * Format: date-time
                         * @description Refreshed about once an hour
                         */
                        lastUsedAt: string | null;
                        /** Format: date-time */
                        revokedAt: string | null;
                        /**
                         * @description Who made it: `mailroom keys`, the API (a person's sign-in included) or an ApiKey resource
                         * @enum {string}
                         */
                        managedBy: "cli" | "api" | "operator";
                        /** @description The person a sign-in minted the key for (ADR 0063); null for a machine's key */
                        owner: {
                            issuer: string;
                            subject: string;
                            email: string | null;
                        } | null;
                        /** @description The full key, `mrk_<keyId>_<secret>`: shown this once, never again */
                        key: string;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The key's id: 12 letters and digits */
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The key's id: safe to log, names the key to revoke */
                        keyId: string;
                        name: string | null;
                        scopes: ("send" | "domains" | "templates" | "webhooks" | "audit" | "keys")[];
                        /**
                         * @description `sandbox`: what the key sends is captured into the account's dev inbox, never delivered
                         * @enum {string}
                         */
                        mode: "live" | "sandbox";
                        /** @enum {string} */
                        state: "active" | "revoked" | "expired";
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        expiresAt: string | null;
                        /**
                         * Format: date-time
                         * @description Refreshed about once an hour
                         */
                        lastUsedAt: string | null;
                        /** Format: date-time */
                        revokedAt: string | null;
                        /**
                         * @description Who made it: `mailroom keys`, the API (a person's sign-in included) or an ApiKey resource
                         * @enum {string}
                         */
                        managedBy: "cli" | "api" | "operator";
                        /** @description The person a sign-in minted the key for (ADR 0063); null for a machine's key */
                        owner: {
                            issuer: string;
                            subject: string;
                            email: string | null;
                        } | null;
                        /** @description Emails of the key that had not left, now failed with `api_key_revoked` */
                        failedEmails: number;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account: string;
                        /**
                         * @description `paused`: new sends answer 403 `sending_paused`; accepted mail is held until a resume
                         * @enum {string}
                         */
                        sendingStatus: "active" | "paused";
                        /** @description Who paused the account's sending, when and why; null while it is active */
                        paused: {
                            /** Format: date-time */
                            at: string;
                            by: string | null;
                            reason: string | null;
                        } | null;
                        /** @description The last resume: who and when */
                        resumed: {
                            /** Format: date-time */
                            at: string;
                            by: string | null;
                        } | null;
                        /** @description The AccountPolicy (`namespace/name`) that sets the limits */
                        policy: string | null;
                        limits: {
                            /** @description API requests per second (429 over it) */
                            requestsPerSecond: number | null;
                            /** @description Emails per second, both doors (429 over it) */
                            emailsPerSecond: number | null;
                            /** @description Emails per UTC day (429 `quota_exceeded` over it) */
                            emailsPerDay: number | null;
                            /** @description Emails per batch request */
                            batchSize: number;
                            allowedCategories: string[] | null;
                            retentionDays?: number | null;
                        };
                        /** @description Emails counted against the quotas (counted only while the account has a quota) */
                        usage: {
                            emailsThisSecond: number;
                            emailsToday: number;
                            /** Format: date-time */
                            dayResetsAt: string;
                        };
                        reputation: {
                            thresholds: {
                                minimumVolume: number;
                                warnBounceRate: number;
                                pauseBounceRate: number;
                                warnComplaintRate: number;
                                pauseComplaintRate: number;
                            };
                            /** @description Per window (24 h, 168 h): the whole account (`domain` empty) and each sending domain */
                            rates: {
                                domain: string;
                                /** @description 24 or 168 */
                                windowHours: number;
                                sent: number;
                                bounced: number;
                                complained: number;
                                bounceRate?: number | null;
                                complaintRate?: number | null;
                                /** @enum {string} */
                                level: "ok" | "low_volume" | "warn" | "pause";
                            }[];
                            /** Format: date-time */
                            computedAt: string | null;
                        };
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resumeAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account: string;
                        /** @enum {string} */
                        sendingStatus: "active";
                        /** @description Held emails given back to delivery */
                        released: number;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendEmail: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe, as the body's idempotencyKey (give one or the other, or both equal) */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SendRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SendResult"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_mismatch`, `domain_not_verified` or `template_render_error`; not retryable */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendBatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description strict (default): one invalid item refuses the whole batch; permissive: valid items are sent and each invalid one reported in `data` */
                "x-batch-validation"?: "strict" | "permissive";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SendRequest"][];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchResult"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_mismatch`, `domain_not_verified` or `template_render_error`; not retryable */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEmailAttachment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The email's id */
                id: string;
                /** @description The attachment's index in the email's list */
                index: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEmailRaw: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The email's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "message/rfc822": string;
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEmails: {
        parameters: {
            query?: {
                /** @description an integer from 1 to 100 (default 20) */
                limit?: number;
                /** @description Cursor: the last id of the previous page */
                after?: string;
                status?: "scheduled" | "queued" | "sending" | "delivered" | "deferred" | "bounced" | "failed" | "canceled";
                to?: string;
                from?: string;
                category?: string;
                /** @description name:value */
                tag?: string;
                /** @description Created at or after */
                since?: string;
                /** @description Created before */
                until?: string;
                /** @description Search, every term (at most 4) must match: `<…>` is a Message-ID; a term with `@` starts the sender's or a recipient's (to, cc or bcc) address; `name:value` is a tag; any other starts a word of the subject or of the sender's or a recipient's (to, cc or bcc) address */
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["EmailSummary"][];
                        /** @description Another page follows: pass the last id as `after` */
                        hasMore: boolean;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEmail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The email's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Email"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rescheduleEmail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The email's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description RFC 3339, up to 30 days ahead */
                    scheduledAt: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailSummary"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelEmail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The email's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmailSummary"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getStats: {
        parameters: {
            query?: {
                /** @description Start of the period (widened to its UTC bucket); default: a day (hour) or 30 days (day) before `to` */
                from?: string;
                /** @description End of the period (widened to its UTC bucket); default: now */
                to?: string;
                /** @description One point per UTC hour (a period of at most 31 days) or day (at most 400 days); default hour */
                bucket?: "hour" | "day";
                /** @description Also split the period by sender domain, category or tag */
                by?: "domain" | "category" | "tag";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        from: string;
                        /** Format: date-time */
                        to: string;
                        /** @enum {string} */
                        bucket: "hour" | "day";
                        /** @enum {string|null} */
                        by: "domain" | "category" | "tag" | null;
                        totals: {
                            /** @description Handed over to the next hop: delivered, or bounced at the handover */
                            sent: number;
                            delivered: number;
                            /** @description Bounces at the handover and bounces reported later */
                            bounced: number;
                            complained: number;
                            /** @description Failed without leaving: key revoked, every recipient suppressed, retries exhausted */
                            failed: number;
                            /** @description Temporary failures, each retry counted */
                            deferred: number;
                            /** @description delivered / sent; null when nothing was sent */
                            deliveryRate: number | null;
                            /** @description Accept (or scheduled time) to delivery, from a histogram; null when nothing was delivered */
                            latency: {
                                p50Ms: number | null;
                                p99Ms: number | null;
                            };
                        };
                        /** @description One point per bucket of the period, oldest first, empty ones included */
                        series: {
                            /** Format: date-time */
                            start: string;
                            /** @description Handed over to the next hop: delivered, or bounced at the handover */
                            sent: number;
                            delivered: number;
                            /** @description Bounces at the handover and bounces reported later */
                            bounced: number;
                            complained: number;
                            /** @description Failed without leaving: key revoked, every recipient suppressed, retries exhausted */
                            failed: number;
                            /** @description Temporary failures, each retry counted */
                            deferred: number;
                            /** @description delivered / sent; null when nothing was sent */
                            deliveryRate: number | null;
                            /** @description Accept (or scheduled time) to delivery, from a histogram; null when nothing was delivered */
                            latency: {
                                p50Ms: number | null;
                                p99Ms: number | null;
                            };
                        }[];
                        /** @description With `by`: each domain, category or tag (`name:value`) with mail in the period, most sent first (50 at most) */
                        groups: {
                            value: string;
                            /** @description Handed over to the next hop: delivered, or bounced at the handover */
                            sent: number;
                            delivered: number;
                            /** @description Bounces at the handover and bounces reported later */
                            bounced: number;
                            complained: number;
                            /** @description Failed without leaving: key revoked, every recipient suppressed, retries exhausted */
                            failed: number;
                            /** @description Temporary failures, each retry counted */
                            deferred: number;
                            /** @description delivered / sent; null when nothing was sent */
                            deliveryRate: number | null;
                            /** @description Accept (or scheduled time) to delivery, from a histogram; null when nothing was delivered */
                            latency: {
                                p50Ms: number | null;
                                p99Ms: number | null;
                            };
                        }[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTransit: {
        parameters: {
            query?: {
                /** @description Start of the period (widened to its UTC hour); default: 24 hours before `to` */
                from?: string;
                /** @description End of the period (widened to its UTC hour; at most 31 days after `from`); default: now */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        from: string;
                        /** Format: date-time */
                        to: string;
                        /** @description Each recipient domain the account's mail went to in the period, busiest first (100 at most) */
                        domains: {
                            /** @description The recipient domain (A-labels) */
                            domain: string;
                            /** @description Recipients the receiver accepted */
                            delivered: number;
                            /** @description Recipients the receiver refused for good at the handover */
                            bounced: number;
                            /** @description Recipients deferred, each attempt counted */
                            deferred: number;
                            /** @description Deferrals by reason: `shaped` (not tried: the destination was backed off or busy), `rate_limited` (the receiver asked us to slow down), `receiver_4xx` (another 4xx reply), `tls_policy` (the session did not meet an enforced MTA-STS, DANE or REQUIRETLS policy), `connection` (no reply) */
                            deferrals: {
                                /** @enum {string} */
                                reason: "shaped" | "rate_limited" | "receiver_4xx" | "tls_policy" | "connection";
                                count: number;
                            }[];
                            /** @description TLS sessions by mechanism and result (`success`, or an RFC 8460 failure type) */
                            sessions: {
                                /** @enum {string} */
                                mechanism: "mta-sts" | "dane" | "opportunistic" | "relay";
                                result: string;
                                count: number;
                            }[];
                            /** @description The period's latest TLS failure, deferral or bounce; null when there was none */
                            lastFailure: {
                                /** Format: date-time */
                                at: string;
                                reason: string;
                            } | null;
                            /** @description Where the mail went, for shaping: a provider group (`group:gmail`) or an MX host (`host:…`) */
                            destinations: {
                                destination: string;
                                name: string;
                                /** @description The destination's shaping now, as the worker that published it last holds it (workers that have not published for 30 s are ignored); null when no running worker holds it: it is at its full limits */
                                state: {
                                    /** @description Below its configured limits after a rate-limit reply, or paused */
                                    backedOff: boolean;
                                    /**
                                     * Format: date-time
                                     * @description Not tried until then (a backoff's pause)
                                     */
                                    pausedUntil: string | null;
                                    /** @description The share of the configured concurrency and rate in force (1: all) */
                                    level: number;
                                    /** @description Sessions it may have open at once, per worker */
                                    concurrency: number;
                                    /** @description Transactions started per minute, per worker; 0: no rate */
                                    ratePerMinute: number;
                                    /** @description Transactions under way on that worker */
                                    inFlight: number;
                                    /** @description The rate-limit reply of its last backoff */
                                    lastReply: string | null;
                                    /** Format: date-time */
                                    updatedAt: string;
                                    /** @description Workers that published it recently */
                                    workers: number;
                                    /** @description Of those, the ones holding it backed off */
                                    workersBackedOff: number;
                                } | null;
                            }[];
                        }[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTemplates: {
        parameters: {
            query?: {
                /** @description an integer from 1 to 100 (default 20) */
                limit?: number;
                /** @description The id of the last template of the previous page */
                after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["TemplateSummary"][];
                        /** @description Another page follows: pass the last id as `after` */
                        hasMore: boolean;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the account: 1 to 128 letters, digits, `.`, `_` or `-` */
                    name: string;
                    /** @description Free text for people; not rendered */
                    description?: string | null;
                    /** @description Handlebars; values inserted raw, and the rendered subject may not contain CR or LF */
                    subject: string;
                    /** @description Handlebars; values HTML-escaped; `{{{…}}}` is refused */
                    html?: string | null;
                    /** @description Handlebars; values inserted raw */
                    text?: string | null;
                    /** @description JSON Schema (draft-07) the variables of a render must satisfy; null accepts any object. Its `examples` (objects the schema accepts, checked when saved) are what a preview starts from */
                    variables?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The template id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The template id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The template id */
                id: string;
            };
            cookie?: never;
        };
        /** @description Changes to subject, html, text or variables make a new version; name and description do not */
        requestBody: {
            content: {
                "application/json": {
                    /** @description Unique in the account: 1 to 128 letters, digits, `.`, `_` or `-` */
                    name?: string;
                    /** @description Free text for people; not rendered */
                    description?: string | null;
                    /** @description Handlebars; values inserted raw, and the rendered subject may not contain CR or LF */
                    subject?: string;
                    /** @description Handlebars; values HTML-escaped; `{{{…}}}` is refused */
                    html?: string | null;
                    /** @description Handlebars; values inserted raw */
                    text?: string | null;
                    /** @description JSON Schema (draft-07) the variables of a render must satisfy; null accepts any object. Its `examples` (objects the schema accepts, checked when saved) are what a preview starts from */
                    variables?: {
                        [key: string]: unknown;
                    } | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Template"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTemplateVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                /** @description A version number */
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TemplateVersion"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    renderTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The template id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @default {} */
                    variables?: {
                        [key: string]: unknown;
                    };
                    /** @description A stored version; the current one when absent */
                    version?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RenderedTemplate"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_mismatch`, `domain_not_verified` or `template_render_error`; not retryable */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDomains: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Domain"][];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createDomain: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The sending domain, e.g. `mail.example.com`; IDNs accepted and stored in `xn--` form */
                    name: string;
                    /** @description `["rsa"]` (default, RSA-2048) or `["rsa", "ed25519"]` to add an Ed25519 signature */
                    algorithms?: ("rsa" | "ed25519")[];
                    dkimRotation?: {
                        /** @description Rotate the DKIM keys this many days after they started signing (default 180); 0: never */
                        intervalDays: number;
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The domain name */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The domain name */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The domain name */
                domain: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    dkimRotation: {
                        /** @description Rotate the DKIM keys this many days after they started signing (default 180); 0: never */
                        intervalDays: number;
                    };
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    verifyDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The domain name */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateDomainDkim: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The domain name */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @description The old key leaked: sign with the new key at once and withdraw every old selector now, accepting that mail signed before DNS serves the new key fails DKIM
                     * @default false
                     */
                    compromised?: boolean;
                } | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `idempotency_key_mismatch`, `domain_not_verified` or `template_render_error`; not retryable */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDomainDmarc: {
        parameters: {
            query?: {
                /** @description How many days back, by report day (UTC), today included */
                days?: number;
            };
            header?: never;
            path: {
                /** @description The domain name */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        domain: string;
                        /** @description Where receivers send aggregate reports: the suggested DMARC record's `rua` */
                        reportAddress: string;
                        /** Format: date */
                        from: string;
                        /** Format: date */
                        to: string;
                        /** @description Aggregate reports received for the period */
                        reports: number;
                        messages: number;
                        passed: number;
                        /** @description Null when no report covers the period */
                        passRate: number | null;
                        /** @description Every source by volume (at most 100) */
                        sources: {
                            /** @description The address receivers saw the mail come from */
                            sourceIp: string;
                            messages: number;
                            /** @description Messages that passed DMARC: aligned DKIM or aligned SPF */
                            passed: number;
                            dkimAligned: number;
                            spfAligned: number;
                            passRate: number;
                            /** @description The receivers that reported it */
                            reporters: string[];
                            /** Format: date */
                            lastSeen: string;
                        }[];
                        /** @description Sources with messages failing DMARC, most failures first (a spoofer, a forgotten sender) */
                        failingSources: {
                            /** @description The address receivers saw the mail come from */
                            sourceIp: string;
                            messages: number;
                            /** @description Messages that passed DMARC: aligned DKIM or aligned SPF */
                            passed: number;
                            dkimAligned: number;
                            spfAligned: number;
                            passRate: number;
                            /** @description The receivers that reported it */
                            reporters: string[];
                            /** Format: date */
                            lastSeen: string;
                        }[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSuppressions: {
        parameters: {
            query?: {
                /** @description an integer from 1 to 100 (default 20) */
                limit?: number;
                /** @description Cursor: the last address of the previous page */
                after?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Suppression"][];
                        /** @description Another page follows: pass the last address as `after` */
                        hasMore: boolean;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    addSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The address to stop sending to */
                    address: string;
                    /** @description A note saying why, kept with the entry */
                    detail?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The address, URL-encoded */
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Suppression"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSuppression: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The address, URL-encoded */
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookEndpoint"][];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description https:// (or http://) receiver URL */
                    url: string;
                    /** @description Event types to send; empty or absent means all */
                    events?: ("email.scheduled" | "email.queued" | "email.delivered" | "email.deferred" | "email.bounced" | "email.failed" | "email.canceled" | "email.complained" | "domain.verified" | "domain.failed" | "domain.dkim_rotation_started" | "domain.dkim_rotated" | "domain.dkim_key_withdrawn" | "domain.check_failed" | "account.paused" | "account.resumed")[];
                    description?: string | null;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description The WebhookEndpoint resource's name (namespace: the account) when the operator manages it */
                        name: string | null;
                        url: string;
                        events: string[];
                        description: string | null;
                        enabled: boolean;
                        disabledReason: string | null;
                        /** @enum {string} */
                        managedBy: "api" | "operator";
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        updatedAt: string;
                        /** @description `whsec_…` signing secret, shown only in this answer */
                        secret: string;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookEventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Every event type an endpoint can subscribe to, as `events` takes them */
                        data: ("email.scheduled" | "email.queued" | "email.delivered" | "email.deferred" | "email.bounced" | "email.failed" | "email.canceled" | "email.complained" | "domain.verified" | "domain.failed" | "domain.dkim_rotation_started" | "domain.dkim_rotated" | "domain.dkim_key_withdrawn" | "domain.check_failed" | "account.paused" | "account.resumed")[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description https:// (or http://) receiver URL */
                    url?: string;
                    /** @description Event types to send; empty or absent means all */
                    events?: ("email.scheduled" | "email.queued" | "email.delivered" | "email.deferred" | "email.bounced" | "email.failed" | "email.canceled" | "email.complained" | "domain.verified" | "domain.failed" | "domain.dkim_rotation_started" | "domain.dkim_rotated" | "domain.dkim_key_withdrawn" | "domain.check_failed" | "account.paused" | "account.resumed")[];
                    description?: string | null;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description How long the previous secrets keep signing (default 86400) */
                    overlapSeconds?: number;
                } | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The new `whsec_…` secret, shown only in this answer */
                        secret: string;
                        /** Format: date-time */
                        previousSecretsExpireAt: string;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description an integer from 1 to 100 (default 50) */
                limit?: number;
                /** @description Cursor: the last id of the previous page (deliveries come newest first) */
                after?: string;
                state?: "pending" | "succeeded" | "failed";
            };
            header?: never;
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"][];
                        /** @description Another page follows: pass the last id as `after` */
                        hasMore: boolean;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryDetail"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    replayWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `conflict` (the resource's state forbids it) or `managed_by_operator` (change the CR) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDevInboxChaos: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        rules: {
                            /** @description One envelope recipient (any case) or `@domain`; absent: every recipient */
                            recipient?: string;
                            /** @description The share of attempts it fails, drawn per attempt (default 1: every one) */
                            share?: number;
                            /**
                             * @description The SMTP step that fails
                             * @enum {string}
                             */
                            at: "rcpt" | "data";
                            /**
                             * @description `reply` with `code`, a dropped connection, or a slow server (`delaySeconds`, then 250)
                             * @enum {string}
                             */
                            action: "reply" | "drop" | "slow";
                            /** @description The reply: 4xx is temporary (retried), 5xx permanent (a bounce) */
                            code?: number;
                            delaySeconds?: number;
                        }[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putDevInboxChaos: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    rules: {
                        /** @description One envelope recipient (any case) or `@domain`; absent: every recipient */
                        recipient?: string;
                        /** @description The share of attempts it fails, drawn per attempt (default 1: every one) */
                        share?: number;
                        /**
                         * @description The SMTP step that fails
                         * @enum {string}
                         */
                        at: "rcpt" | "data";
                        /**
                         * @description `reply` with `code`, a dropped connection, or a slow server (`delaySeconds`, then 250)
                         * @enum {string}
                         */
                        action: "reply" | "drop" | "slow";
                        /** @description The reply: 4xx is temporary (retried), 5xx permanent (a bounce) */
                        code?: number;
                        delaySeconds?: number;
                    }[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        rules: {
                            /** @description One envelope recipient (any case) or `@domain`; absent: every recipient */
                            recipient?: string;
                            /** @description The share of attempts it fails, drawn per attempt (default 1: every one) */
                            share?: number;
                            /**
                             * @description The SMTP step that fails
                             * @enum {string}
                             */
                            at: "rcpt" | "data";
                            /**
                             * @description `reply` with `code`, a dropped connection, or a slow server (`delaySeconds`, then 250)
                             * @enum {string}
                             */
                            action: "reply" | "drop" | "slow";
                            /** @description The reply: 4xx is temporary (retried), 5xx permanent (a bounce) */
                            code?: number;
                            delaySeconds?: number;
                        }[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the body is larger than allowed */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: send the body as `Content-Type: application/json` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDevInboxMessages: {
        parameters: {
            query?: {
                /** @description An envelope recipient (any case) */
                to?: string;
                /** @description Text the subject contains (any case) */
                subject?: string;
                /** @description an integer from 1 to 100 (default 50) */
                limit?: number;
                /** @description Seconds to wait for a match (long poll), 0 to 30 (default 0: answer at once) */
                wait?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description The captured message's id */
                            id: string;
                            /**
                             * Format: uuid
                             * @description The email (log entry) it was captured from
                             */
                            emailId: string;
                            /** @description The SMTP envelope sender (MAIL FROM) it would have had */
                            envelopeFrom: string;
                            /** @description The SMTP envelope recipients (RCPT TO) it would have had, Bcc included */
                            recipients: string[];
                            from: string;
                            /** @description To and Cc, as the headers name them */
                            to: string[];
                            subject: string;
                            /** @description The Date header, when it parses */
                            date: string | null;
                            /** Format: date-time */
                            receivedAt: string;
                            /** @description Bytes, as received */
                            size: number;
                        }[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    clearDevInbox: {
        parameters: {
            query?: {
                /** @description An envelope recipient (any case) */
                to?: string;
                /** @description Text the subject contains (any case) */
                subject?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no body */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDevInboxMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A captured message's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The captured message's id */
                        id: string;
                        /**
                         * Format: uuid
                         * @description The email (log entry) it was captured from
                         */
                        emailId: string;
                        /** @description The SMTP envelope sender (MAIL FROM) it would have had */
                        envelopeFrom: string;
                        /** @description The SMTP envelope recipients (RCPT TO) it would have had, Bcc included */
                        recipients: string[];
                        from: string;
                        /** @description To and Cc, as the headers name them */
                        to: string[];
                        subject: string;
                        /** @description The Date header, when it parses */
                        date: string | null;
                        /** Format: date-time */
                        receivedAt: string;
                        /** @description Bytes, as received */
                        size: number;
                        html: string | null;
                        text: string | null;
                        headers: {
                            name: string;
                            value: string;
                        }[];
                        attachments: {
                            index: number;
                            filename: string;
                            contentType: string;
                            /** @description Named by `cid:` URLs in the HTML */
                            contentId: string | null;
                            size: number;
                        }[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDevInboxMessageRaw: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A captured message's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "message/rfc822": string;
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDevInboxAttachment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A captured message's id */
                id: string;
                /** @description The attachment's index */
                index: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such resource in this account */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                /** @description an integer from 1 to 100 (default 50) */
                limit?: number;
                /** @description Cursor: the last id of the previous page */
                after?: string;
                action?: "key.created" | "key.revoked" | "domain.created" | "domain.verified" | "domain.updated" | "domain.dkim_rotation_requested" | "domain.deleted" | "template.created" | "template.updated" | "template.deleted" | "webhook.created" | "webhook.updated" | "webhook.deleted" | "webhook.secret_rotated" | "webhook.delivery_replayed" | "email.canceled" | "email.rescheduled" | "suppression.added" | "suppression.lifted" | "account.paused" | "account.resumed" | "account.policy_applied" | "sandbox.chaos_replaced" | "smtp.auth_failed";
                /** @description The actor's id: a key id (a person's key's too), a person's subject, Kind/namespace/name, … */
                actor?: string;
                actorKind?: "key" | "person" | "operator" | "smtp" | "cli" | "system";
                /** @description At or after */
                since?: string;
                /** @description Before */
                until?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description The entry's id (UUIDv7): the cursor */
                            id: string;
                            /** Format: date-time */
                            at: string;
                            /** @description Who: an API key (id: key id, label: its name), a person signed in (id: their subject, label: their email, keyId: the key they acted with), a custom resource (id: Kind/namespace/name), the SMTP door (id: the key id a login tried), the installation's CLI or Mailroom itself */
                            actor: {
                                /** @enum {string} */
                                kind: "key" | "person" | "operator" | "smtp" | "cli" | "system";
                                id: string;
                                label: string | null;
                                /** @description A person's change: the key they acted with; else null */
                                keyId: string | null;
                            };
                            /** @description One of key.created, key.revoked, domain.created, domain.verified, domain.updated, domain.dkim_rotation_requested, domain.deleted, template.created, template.updated, template.deleted, webhook.created, webhook.updated, webhook.deleted, webhook.secret_rotated, webhook.delivery_replayed, email.canceled, email.rescheduled, suppression.added, suppression.lifted, account.paused, account.resumed, account.policy_applied, sandbox.chaos_replaced, smtp.auth_failed */
                            action: string;
                            /** @description What it was done to: a key id, domain, template or endpoint id, address */
                            target: string | null;
                            /** @description What else is known: never a secret */
                            detail: {
                                [key: string]: unknown;
                            };
                            /** @description From where: the HTTP client's or SMTP peer's address, the HTTP user agent */
                            origin: {
                                ip: string | null;
                                userAgent: string | null;
                            };
                        }[];
                        /** @description Another page follows: pass the last id as `after` */
                        hasMore: boolean;
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuditActions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Every action the trail records, as the list's `action` filter takes them */
                        data: ("key.created" | "key.revoked" | "domain.created" | "domain.verified" | "domain.updated" | "domain.dkim_rotation_requested" | "domain.deleted" | "template.created" | "template.updated" | "template.deleted" | "webhook.created" | "webhook.updated" | "webhook.deleted" | "webhook.secret_rotated" | "webhook.delivery_replayed" | "email.canceled" | "email.rescheduled" | "suppression.added" | "suppression.lifted" | "account.paused" | "account.resumed" | "account.policy_applied" | "sandbox.chaos_replaced" | "smtp.auth_failed")[];
                    };
                };
            };
            /** @description `validation_error` (the message names the field) or `invalid_idempotency_key` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `missing_api_key`, `invalid_api_key`, `api_key_revoked` or `api_key_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `insufficient_scope`, `https_required` for plain HTTP, `sending_paused` (until the account is resumed), `category_not_allowed` (the account's policy) or `domain_not_allowed` (a shared domain whose allowed namespaces leave the account out); not retryable */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limit_exceeded` (a per-second limit) or `quota_exceeded` (the account's emails per day, until the UTC day ends); retry after `Retry-After` seconds with the same idempotencyKey */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `internal_error`: the details are in the server's log, under the X-Request-Id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `service_unavailable`: the database is unreachable; retry after `Retry-After` seconds */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    onEmailScheduled: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "email.scheduled";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["EmailEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onEmailQueued: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "email.queued";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["EmailEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onEmailDelivered: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "email.delivered";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["EmailEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onEmailDeferred: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "email.deferred";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["EmailEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onEmailBounced: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "email.bounced";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["EmailEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onEmailFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "email.failed";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["EmailEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onEmailCanceled: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "email.canceled";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["EmailEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onEmailComplained: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "email.complained";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["EmailEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onDomainVerified: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "domain.verified";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["DomainEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onDomainFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "domain.failed";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["DomainEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onDomainDkim_rotation_started: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "domain.dkim_rotation_started";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["DkimRotationEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onDomainDkim_rotated: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "domain.dkim_rotated";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["DkimRotationEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onDomainDkim_key_withdrawn: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "domain.dkim_key_withdrawn";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["DkimRotationEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onDomainCheck_failed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "domain.check_failed";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["DomainCheckEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAccountPaused: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "account.paused";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["AccountEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAccountResumed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event's id: the same on every retry, so a receiver can drop duplicates */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse ones far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures, one per active `whsec_` secret of the endpoint */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @constant */
                    type: "account.resumed";
                    /** Format: date-time */
                    timestamp: string;
                    data: components["schemas"]["AccountEventData"];
                };
            };
        };
        responses: {
            /** @description Received: the delivery succeeded */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Anything else (or no answer) is retried with backoff; a long failure disables the endpoint */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
