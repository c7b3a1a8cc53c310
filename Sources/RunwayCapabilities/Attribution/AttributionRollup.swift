import RunwayStore

/// What installs and their events add to their links' daily figures (`LinkRollup`), in the transaction that stores
/// them, and take out again when the install is forgotten. An install counts as the funnel counts it: brought by a
/// link and not a returning device; its events count when they carry a link. Both are counted by the install's
/// platform and OS version and the matched click's variant and QR source; those of simulated installs apart.
enum AttributionRollup {
    static func counted(_ install: InstallRecord) -> Bool { install.linkId != nil && install.source != "returning" }

    static func facts(_ install: InstallRecord, variant: String?, qr: Bool) -> LinkRollup.Facts {
        LinkRollup.Facts(platform: install.platform, osVersion: install.osVersion, variant: variant, qr: qr)
    }

    static func add(install: InstallRecord, to rollup: inout LinkRollup) {
        guard counted(install), let linkId = install.linkId else { return }
        rollup.add(1, of: LinkRollup.measure("install", simulated: install.simulated), link: linkId, at: install.matchedAt,
                   facts: facts(install, variant: install.variant, qr: install.qr))
    }

    /// One stored event: its count by type, and its net revenue by currency.
    static func add(event type: String, amount: Int64?, currency: String?, linkId: String?, receivedAt: Int64, variant: String?, qr: Bool,
                    install: EventInstall, to rollup: inout LinkRollup) {
        guard let linkId else { return }
        let facts = LinkRollup.Facts(platform: install.platform, osVersion: install.osVersion, variant: variant, qr: qr)
        rollup.add(1, of: LinkRollup.measure("event:" + type, simulated: install.simulated), link: linkId, at: receivedAt, facts: facts)
        if Events.revenueTypes.contains(type), let amount, let currency {
            rollup.add(type == "REFUND" ? -amount : amount, of: LinkRollup.measure("revenue:" + currency, simulated: install.simulated),
                       link: linkId, at: receivedAt, facts: facts)
        }
    }

    /// Takes what the install and its events added out of the figures, before they are deleted.
    static func forget(appId: String, installId: String, _ db: any SQLExecutor) throws {
        guard let install = try AttributionQueries.install(db, appId: appId, installId: installId) else { return }
        var rollup = LinkRollup()
        add(install: install, to: &rollup)
        let forEvents = install.forEvents
        for event in try AttributionQueries.linkedEvents(db, appId: appId, installId: installId) {
            add(event: event.type, amount: event.amount, currency: event.currency, linkId: event.linkId, receivedAt: event.receivedAt,
                variant: event.variant, qr: event.qr, install: forEvents, to: &rollup)
        }
        try rollup.remove(from: db)
    }
}
