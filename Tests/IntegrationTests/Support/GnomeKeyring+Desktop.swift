import SecretServiceTesting

extension GnomeKeyring {
    /// The keyring of a test's desktop: its bus, its HOME and XDG directories.
    convenience init(desktop: TestDesktop) throws {
        try self.init(busAddress: desktop.busAddress ?? "", environment: desktop.environment, directory: desktop.root)
    }
}
