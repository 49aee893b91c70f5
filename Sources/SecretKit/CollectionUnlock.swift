import DBusKit

/// Asking the Secret Service to unlock the default collection, as a person's
/// click on "Unlock the keyring for …" does: `Unlock([collection])`, then
/// `Prompt("")` on the prompt it answers with, which shows the keyring's own
/// dialog (gnome-keyring's through gcr, KeePassXC's, KWallet's). The password
/// goes from the person to the keyring; linkrouter never sees it, and does not
/// wait for the answer: the collection's `CollectionChanged` says when it is
/// unlocked (`Router.keyringChanged`).
enum CollectionUnlock {
    static func ask(
        address: String?, timeoutMilliseconds: Int32, deadline: Int64
    ) -> Result<SecretStore.UnlockOutcome, SecretError> {
        let bus: DBusConnection
        let collection: ObjectPath
        switch CollectionCheck.defaultCollection(
            address: address, timeoutMilliseconds: timeoutMilliseconds, deadline: deadline)
        {
        case .failure(let e): return .failure(e)
        case .success(let found): (bus, collection) = found
        }
        do throws(DBusError) {
            let unlock = DBusMessage.methodCall(
                CollectionCheck.service, CollectionCheck.servicePath, CollectionCheck.serviceInterface, "Unlock")
            try unlock.append(.array(element: "o", [.objectPath(collection)]))
            let answer = try bus.callArguments(unlock, timeoutMilliseconds: timeoutMilliseconds)
            guard answer.count == 2, case .objectPath(let prompt) = answer[1] else {
                return .failure(.failed("Unlock answered neither the unlocked objects nor a prompt"))
            }
            guard prompt.rawValue != "/" else { return .success(.alreadyUnlocked) }
            // The window id is empty: the daemon has no window; the keyring's dialog stands alone.
            let show = DBusMessage.methodCall(
                CollectionCheck.service, prompt, "org.freedesktop.Secret.Prompt", "Prompt")
            try show.append(.string(""))
            _ = try bus.callArguments(show, timeoutMilliseconds: timeoutMilliseconds)
            return .success(.prompted)
        } catch {
            return .failure(CollectionCheck.classify(error, deadline))
        }
    }
}
