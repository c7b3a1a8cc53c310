/// A person who signs in to the console with an email and a password; they see one workspace.
public struct ConsoleUser: Codable, Sendable, Equatable {
    public var id: String
    public var workspaceId: String
    public var email: String
    public var createdAt: String

    public init(id: String, workspaceId: String, email: String, createdAt: String) {
        self.id = id
        self.workspaceId = workspaceId
        self.email = email
        self.createdAt = createdAt
    }
}

/// `POST /v1/users`: a console user and the password they sign in with (stored only as a PBKDF2 hash).
public struct CreateConsoleUserRequest: Codable, Sendable {
    public var workspaceId: String?
    public var email: String
    public var password: String

    public init(workspaceId: String?, email: String, password: String) {
        self.workspaceId = workspaceId
        self.email = email
        self.password = password
    }
}
