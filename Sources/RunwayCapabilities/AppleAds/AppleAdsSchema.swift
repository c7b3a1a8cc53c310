import RunwayKit
import RunwayStore

/// Apple Ads claims and the campaign ids they give installs and events. Append only: a released step never changes.
enum AppleAdsSchema {
    static let migrations: [Migration] = [
        Migration(id: "0005_apple_ads", sql: """
            CREATE TABLE apple_ads_claims (
                app_id TEXT NOT NULL REFERENCES apps (id),
                install_id TEXT NOT NULL,
                workspace_id TEXT NOT NULL,
                token TEXT,
                status TEXT NOT NULL,
                attempts BIGINT NOT NULL,
                not_found_in_a_row BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                lease_until BIGINT,
                last_status BIGINT,
                last_error TEXT,
                org_id TEXT,
                campaign_id TEXT,
                ad_group_id TEXT,
                keyword_id TEXT,
                ad_id TEXT,
                conversion_type TEXT,
                claim_type TEXT,
                click_date BIGINT,
                impression_date BIGINT,
                country_or_region TEXT,
                supply_placement TEXT,
                test_data BIGINT NOT NULL,
                received_at BIGINT NOT NULL,
                resolved_at BIGINT,
                PRIMARY KEY (app_id, install_id)
            );
            CREATE INDEX apple_ads_claims_due ON apple_ads_claims (status, next_attempt_at);
            ALTER TABLE installs ADD COLUMN apple_ads_campaign_id TEXT;
            ALTER TABLE installs ADD COLUMN apple_ads_ad_group_id TEXT;
            ALTER TABLE installs ADD COLUMN apple_ads_keyword_id TEXT;
            ALTER TABLE events ADD COLUMN apple_ads_campaign_id TEXT;
            ALTER TABLE events ADD COLUMN apple_ads_ad_group_id TEXT;
            ALTER TABLE events ADD COLUMN apple_ads_keyword_id TEXT;
            """),
        // AdServices makes a new token when the user changes tracking consent: a claim remembers the SHA-256 of the
        // token it was answered for, and how often a new one has asked Apple again.
        Migration(id: "0050_apple_ads_token_renewals", sql: """
            ALTER TABLE apple_ads_claims ADD COLUMN token_sha256 TEXT;
            ALTER TABLE apple_ads_claims ADD COLUMN renewals BIGINT NOT NULL DEFAULT 0;
            """),
    ]
}
