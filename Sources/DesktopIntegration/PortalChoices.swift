public import DBusKit

/// What the OpenURI portal remembers of "Open With…" picks: the permission
/// store's `desktop-used-apps` table, one row per content type
/// (`x-scheme-handler/com.example.app`), one entry per requesting app id:
/// `[handler, count, threshold]`.
///
/// Why linkrouter minds it: whenever the portal skips its chooser (one
/// handler, as `register` makes it), it launches the requesting app's last
/// pick before the `mimeapps.list` default, as long as that pick's desktop
/// file exists (xdg-desktop-portal 1.16, `src/open-uri.c`). A pick of the app
/// made before linkrouter was registered would therefore go on handing that
/// browser's login callbacks to the app. `register` forgets such picks and
/// records them; `uninstall` puts them back.
public struct PortalChoices {
    /// One remembered pick.
    public struct Pick: Sendable, Equatable {
        /// The requesting app (a Flatpak id; "" for a host app).
        public let requester: String
        /// The desktop id it picked, without `.desktop`, as the portal keeps it.
        public let handler: String
        public let count: String
        public let threshold: String

        public init(requester: String, handler: String, count: String, threshold: String) {
            self.requester = requester
            self.handler = handler
            self.count = count
            self.threshold = threshold
        }

        /// Whether it picked the desktop entry `id` (the portal stores ids without `.desktop`).
        public func picked(_ id: String) -> Bool { handler == id || handler + ".desktop" == id }

        /// One item of the install record's list (`requester|handler|count|threshold`).
        public var recorded: String { [requester, handler, count, threshold].joined(separator: "|") }

        public init?(recorded text: String) {
            let parts = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4 else { return nil }
            self.init(requester: parts[0], handler: parts[1], count: parts[2], threshold: parts[3])
        }
    }

    static let table = "desktop-used-apps"
    static let destination: BusName = "org.freedesktop.impl.portal.PermissionStore"
    static let path: ObjectPath = "/org/freedesktop/impl/portal/PermissionStore"
    static let interface: InterfaceName = "org.freedesktop.impl.portal.PermissionStore"

    let connection: DBusConnection

    /// The store on the session bus, or nil with no bus.
    public static func onSessionBus() -> PortalChoices? {
        (try? DBusConnection.session()).map(PortalChoices.init(connection:))
    }

    public init(connection: DBusConnection) { self.connection = connection }

    /// The picks remembered for `mimeType`; none when no permission store runs
    /// or can be started (no portal on this desktop) or nothing is remembered.
    public func picks(for mimeType: String) throws(DBusError) -> [Pick] {
        let reply: [DBusValue]
        do { reply = try call("Lookup", [.string(Self.table), .string(mimeType)]) } catch {
            if Self.meansNothingStored(error) { return [] }
            throw error
        }
        var out: [Pick] = []
        for (requester, value) in reply.first?.stringKeyedEntries ?? [] {
            guard case .array(_, let items) = value else { continue }
            let fields = items.compactMap(\.stringValue)
            guard fields.count >= 2 else { continue }
            out.append(
                Pick(
                    requester: requester, handler: fields[0], count: fields[1],
                    threshold: fields.count > 2 ? fields[2] : ""))
        }
        return out.sorted { $0.requester < $1.requester }
    }

    /// Forgets one requester's pick for `mimeType`.
    public func forget(_ pick: Pick, for mimeType: String) throws(DBusError) {
        _ = try call("DeletePermission", [.string(Self.table), .string(mimeType), .string(pick.requester)])
    }

    /// Remembers `pick` again, as it was.
    public func restore(_ pick: Pick, for mimeType: String) throws(DBusError) {
        _ = try call(
            "SetPermission",
            [
                .string(Self.table), .boolean(true), .string(mimeType), .string(pick.requester),
                .stringArray([pick.handler, pick.count, pick.threshold]),
            ])
    }

    func call(_ member: MemberName, _ args: [DBusValue]) throws(DBusError) -> [DBusValue] {
        let m = try DBusMessage.methodCall(
            destination: Self.destination, path: Self.path, interface: Self.interface, member: member)
        try m.append(contentsOf: args)
        return try connection.callArguments(m, timeoutMilliseconds: 5000)
    }

    /// No store on this bus, or no row for the type: nothing is remembered.
    static func meansNothingStored(_ error: DBusError) -> Bool {
        error.name == DBusError.serviceUnknown || error.name == DBusError.nameHasNoOwner
            || error.name == "org.freedesktop.portal.Error.NotFound"
            || error.name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
    }
}
