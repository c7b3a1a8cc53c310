import RunwayKit
import RunwayStore

/// App Attest challenges and keys, and each app's attestation policy. Append only: a released step never changes.
enum AttestSchema {
    static let migrations: [Migration] = [
        Migration(id: "0006_app_attest", sql: """
            ALTER TABLE apps ADD COLUMN attest_policy TEXT NOT NULL DEFAULT 'off';
            ALTER TABLE apps ADD COLUMN attest_environments TEXT NOT NULL DEFAULT 'production';
            ALTER TABLE installs ADD COLUMN attested BIGINT NOT NULL DEFAULT 0;
            CREATE TABLE attest_challenges (
                app_id TEXT NOT NULL,
                challenge TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, challenge)
            );
            CREATE INDEX attest_challenges_by_age ON attest_challenges (created_at);
            CREATE TABLE attest_keys (
                app_id TEXT NOT NULL REFERENCES apps (id),
                key_id TEXT NOT NULL,
                install_id TEXT,
                public_key TEXT NOT NULL,
                receipt TEXT NOT NULL,
                environment TEXT NOT NULL,
                counter BIGINT NOT NULL,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, key_id)
            );
            """),
        // iOS 27 attests the app's launch validation category (App Store, TestFlight, development…) and bundle version:
        // kept with the key, and an app may require App Store or TestFlight builds.
        Migration(id: "0067_app_attest_builds", sql: """
            ALTER TABLE attest_keys ADD COLUMN validation_category BIGINT;
            ALTER TABLE attest_keys ADD COLUMN bundle_version TEXT;
            ALTER TABLE apps ADD COLUMN attest_builds TEXT NOT NULL DEFAULT 'any';
            """),
    ]
}
