import RunwayCapabilities
import RunwayKit
import RunwayStore

/// Console users, sessions and sign-in attempts. Append only: a released step never changes.
enum ConsoleSchema {
    static let migrations: [Migration] = [
        Migration(id: "0011_console", sql: consoleSQL),
        // Console sign-in attempts per account (a SHA-256 of the email or key prefix), shared by every server process.
        Migration(id: "0013_console_sign_in_attempts", sql: """
            CREATE TABLE console_sign_in_attempts (account_hash TEXT NOT NULL, attempted_at BIGINT NOT NULL);
            CREATE INDEX console_sign_in_attempts_by_account ON console_sign_in_attempts (account_hash, attempted_at);
            """),
        // Who made each console user (a key id or another user's id), so that removing one, or revoking the key,
        // removes the users they made too.
        Migration(id: "0043_console_user_makers", sql: """
            ALTER TABLE console_users ADD COLUMN created_by TEXT;
            CREATE INDEX console_users_by_maker ON console_users (created_by) WHERE created_by IS NOT NULL;
            """)
    ]

    /// Console users (a PBKDF2 hash of their password, one workspace each) and console sessions (the hash of the
    /// cookie, who signed in, the CSRF token of their forms).
    static let consoleSQL = """
        CREATE TABLE console_users (
            id TEXT PRIMARY KEY,
            workspace_id TEXT NOT NULL REFERENCES workspaces (id),
            email TEXT NOT NULL UNIQUE,
            password_hash TEXT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX console_users_by_workspace ON console_users (workspace_id, created_at, id);
        CREATE TABLE console_sessions (
            id_hash TEXT PRIMARY KEY,
            user_id TEXT,
            key_id TEXT,
            kind TEXT NOT NULL,
            workspace_id TEXT,
            csrf TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            last_seen_at BIGINT NOT NULL
        );
        CREATE INDEX console_sessions_by_age ON console_sessions (created_at);
        """
}
