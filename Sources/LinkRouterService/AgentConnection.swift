import JSONKit
import LinkRouterCore
import SodiumKit
import SystemKit

/// One client of the agent socket, from accept to close: what it has sent so
/// far, the keys of its encrypted form once it exchanged them, and where its
/// one request is (being read, waiting for the core, its answer being written).
final class AgentConnection {
    /// The name it is known by to the core (`agent:N`), as a bus client is by its unique name.
    let name: String
    let socket: UnixConnection
    var source: EventLoop.SourceID?
    var timer: EventLoop.TimerID?
    var buffer: [UInt8] = []
    var phase: Phase = .reading

    enum Phase {
        /// Reading its first message (a JSON request or its public key), or, with `box`, the encrypted request.
        case reading
        /// The request was handed to the core, which holds it under an operation.
        case waiting(AgentRequest)
        /// Its answer is being written.
        case writing([UInt8], sent: Int)
        /// Its answer was written and its end told so; what it still sends is read and dropped until it closes (a
        /// socket closed with bytes unread makes the peer's read fail, its answer lost).
        case draining
    }

    /// The encrypted form's keys: this connection's own pair and the client's public key.
    var box: (keys: BoxKeyPair, client: [UInt8])?
    /// The request came sealed: so does the answer.
    var sealed = false
    /// Its request went to the core, which then knows it as a caller until it closes.
    var asked = false

    /// The forward it came through (`ssh -R`), whose limits its request meets; nil on the main socket.
    let forward: AgentForward?

    init(name: String, socket: UnixConnection, forward: AgentForward?) {
        self.name = name
        self.socket = socket
        self.forward = forward
    }

    /// The answer's bytes: the JSON as it is, or sealed for the client when it asked in the encrypted form
    /// (`LEN:NONCE:BOX`, LEN the plaintext's bytes, a fresh nonce each message).
    func answerBytes(_ answer: JSONValue) -> [UInt8] {
        let plain = Array(JSONParser.encode(answer).utf8)
        guard sealed, let box else { return plain }
        do throws(SodiumError) {
            let nonce = SecureRandom.bytes(BoxKeyPair.nonceBytes)
            let sealed = try box.keys.seal(plain, nonce: nonce, to: box.client)
            return Array("\(plain.count):\(try Base64.encode(nonce)):\(try Base64.encode(sealed))".utf8)
        } catch {
            // Not reached with keys that were made: the client hears why in plain text, which it reads too.
            return Array(
                JSONParser.encode(AgentRefusal.failure("encryption failed", info: error.description).json).utf8)
        }
    }
}
