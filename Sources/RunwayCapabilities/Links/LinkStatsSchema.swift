import Foundation
import RunwayStore

/// `link_stats`, the daily figures of links (`LinkRollup`), and their backfill from the clicks, installs and events
/// stored before it, in the same step. Released steps never change.
enum LinkStatsSchema {
    static let migration = Migration(id: "0041_link_stats", sqlite: sql(.sqlite), postgres: sql(.postgres))

    /// Lets `period` be `year`. SQLite cannot change a CHECK in place, so the table is made again with its rows; the
    /// rows themselves come later (`LinkStatsYears.build`), once no older server that adds to months only is left.
    /// PostgreSQL keeps no year rows (`LinkStatsYears.kept`) but takes the same CHECK.
    static let years = Migration(id: "0068_link_stats_years", sqlite: table("link_stats_next", periods: "'day', 'month', 'year'", dialect: .sqlite) + """
        INSERT INTO link_stats_next (link_id, dimension, period, day, value, measure, lane, amount)
        SELECT link_id, dimension, period, day, value, measure, lane, amount FROM link_stats;
        DROP TABLE link_stats;
        ALTER TABLE link_stats_next RENAME TO link_stats;
        """, postgres: """
        ALTER TABLE link_stats DROP CONSTRAINT link_stats_period_check;
        ALTER TABLE link_stats ADD CONSTRAINT link_stats_period_check CHECK (period IN ('day', 'month', 'year'));
        """)

    /// The table (clustered by its key on SQLite, so a link's periods of one dimension lie together), then one
    /// `INSERT … SELECT` per source, dimension and period, each computing in SQL what `LinkRollup.add` computes for
    /// new rows. Every key column comes before `amount`: with a key column after it, SQLite 3.40's integrity check
    /// (which `linkrunway backup` runs) reports each row's `amount` as NULL.
    static func sql(_ dialect: SQLDialect) -> String {
        var text = table("link_stats", periods: "'day', 'month'", dialect: dialect)
        func insert(_ select: String, from source: String, time: String, dimensions: [(String, String)], group: String) {
            for (period, start) in [("day", "\(time) / 86400000"), ("month", monthStart(time, dialect: dialect))] {
                for (dimension, value) in dimensions {
                    text += """
                        INSERT INTO link_stats (link_id, dimension, period, day, value, measure, amount)
                        SELECT \(select.replacingOccurrences(of: "{d}", with: "'\(dimension)', '\(period)', \(start), \(value)")) \(source)
                        GROUP BY \(group.replacingOccurrences(of: "{d}", with: "\(start), \(grouped(value))"));

                        """
                }
            }
        }
        insert("c.link_id, {d}, c.kind, COUNT(*)", from: "FROM clicks c", time: "c.created_at",
               dimensions: dimensions(platform: "c.platform", osVersion: "c.os_version", variant: "c.variant", qr: "c.qr", dialect: dialect)
                   + [("country", "COALESCE(c.country, '')"), ("referrer", "COALESCE(c.referrer_host, '')")],
               group: "c.link_id, {d}c.kind")
        // Installs counted as the funnel counts them: brought by a link, and not a returning device.
        let simulated = "(CASE WHEN i.simulated = 1 THEN 'simulated:' ELSE '' END)"
        insert("i.link_id, {d}, \(simulated) || 'install', COUNT(*)",
               from: "FROM installs i WHERE i.link_id IS NOT NULL AND i.source <> 'returning'", time: "i.matched_at",
               dimensions: dimensions(platform: "i.platform", osVersion: "i.os_version", variant: "i.variant", qr: "i.qr", dialect: dialect),
               group: "i.link_id, {d}i.simulated")
        // Events with a link, by their install's platform and OS version and their own variant and QR source.
        let events = "FROM events e JOIN installs i ON i.app_id = e.app_id AND i.install_id = e.install_id WHERE e.link_id IS NOT NULL"
        let eventDimensions = dimensions(platform: "i.platform", osVersion: "i.os_version", variant: "e.variant", qr: "e.qr", dialect: dialect)
        insert("e.link_id, {d}, \(simulated) || 'event:' || e.type, COUNT(*)", from: events, time: "e.received_at",
               dimensions: eventDimensions, group: "e.link_id, {d}i.simulated, e.type")
        insert("e.link_id, {d}, \(simulated) || 'revenue:' || e.currency, SUM(CASE WHEN e.type = 'REFUND' THEN -e.amount ELSE e.amount END)",
               from: events + " AND e.type IN ('PURCHASE', 'SUBSCRIPTION', 'REFUND') AND e.currency IS NOT NULL AND e.amount IS NOT NULL",
               time: "e.received_at", dimensions: eventDimensions, group: "e.link_id, {d}i.simulated, e.currency")
        return text
    }

    /// The table, named `name`, with the periods its CHECK allows (clustered by its key on SQLite).
    static func table(_ name: String, periods: String, dialect: SQLDialect) -> String {
        """
        CREATE TABLE \(name) (
            link_id TEXT NOT NULL,
            dimension TEXT NOT NULL,
            period TEXT NOT NULL CHECK (period IN (\(periods))),
            day BIGINT NOT NULL,
            value TEXT NOT NULL,
            measure TEXT NOT NULL,
            lane INTEGER NOT NULL DEFAULT 0,
            amount BIGINT NOT NULL,
            PRIMARY KEY (link_id, dimension, period, day, value, measure, lane)
        )\(dialect == .sqlite ? " WITHOUT ROWID" : "");

        """
    }

    /// `LinkRollup.monthStart` in SQL: the first day (days since 1970) of the UTC month of a time in milliseconds.
    static func monthStart(_ milliseconds: String, dialect: SQLDialect) -> String {
        dialect == .sqlite
            ? "(CAST(strftime('%s', \(milliseconds) / 1000, 'unixepoch', 'start of month') AS BIGINT) / 86400)"
            : "(CAST(EXTRACT(EPOCH FROM date_trunc('month', to_timestamp(\(milliseconds) / 1000) AT TIME ZONE 'UTC')) AS BIGINT) / 86400)"
    }

    /// A value to group by, followed by a comma; nothing for the total's constant, which PostgreSQL will not group by.
    static func grouped(_ value: String) -> String { value == "''" ? "" : value + ", " }

    /// The total and the dimensions every counted row has, as SQL over the given columns.
    static func dimensions(platform: String, osVersion: String, variant: String, qr: String, dialect: SQLDialect) -> [(String, String)] {
        [
            (LinkRollup.total, "''"),
            ("platform", platform),
            ("osVersion", osMajor(platform: platform, version: osVersion, dialect: dialect)),
            ("variant", "COALESCE(\(variant), '')"),
            ("qr", "(CASE WHEN \(qr) = 1 THEN 'scan' ELSE 'tap' END)"),
        ]
    }

    /// `LinkRollup.osMajor` in SQL: the platform and what comes before the first dot, or '' when that is empty.
    static func osMajor(platform: String, version: String, dialect: SQLDialect) -> String {
        let major = dialect == .sqlite
            ? "(CASE WHEN instr(\(version), '.') > 0 THEN substr(\(version), 1, instr(\(version), '.') - 1) ELSE \(version) END)"
            : "split_part(\(version), '.', 1)"
        return "(CASE WHEN \(version) IS NULL OR \(major) = '' THEN '' ELSE \(platform) || ' ' || \(major) END)"
    }
}
