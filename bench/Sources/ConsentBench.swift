import DBusKit
import Glibc
import LinkRouterAPI
import SystemKit

/// Issue 36's figures: what the person's yes costs besides the person. A
/// notification server whose person answers at once (`instant_person.py`,
/// GIO), a real gnome-keyring and Glewlwyd, the release daemon.
/// - `linkctl token` of an account declared `confirm=true` (the prompt, its
///   description of the program, the notification's round trip and the
///   answer) beside `linkctl token` of one without;
/// - `GetToken` from a Flatpak-made app (bubblewrap with a `/.flatpak-info`)
///   whose "Always allow" is remembered, beside the same call from the same
///   bubblewrap without the file (a host program): what the grant costs.
extension Bench {
    func consent() throws {
        say("consent: a prompt answered at once, a remembered grant")
        guard FileSystem.isExecutable("/usr/bin/bwrap") else {
            notes.append("consent not measured: /usr/bin/bwrap is missing (scripts/setup --test installs it)")
            return
        }
        guard let world = try accountWorld("consent") else { return }
        defer { withExtendedLifetime(world) {} }
        let w = world.w
        try world.add("work", bin: bin)
        try world.add("confirmed", bin: bin, ["--confirm"])
        try signIn(w, "work", providerInfo: world.provider.infoPath)
        try signIn(w, "confirmed", providerInfo: world.provider.infoPath)
        let runs = n(40, 3)
        func must(_ argv: [String]) throws {
            let r = try w.run(argv)
            guard r.status == 0 else { throw BenchError("\(argv.joined(separator: " ")) failed: \(r.errorText)") }
        }

        // The app's "Always allow", said once by the person.
        let app = "org.example.BenchApp"
        let info = w.root + "/flatpak-info"
        try FileSystem.writeAtomically(
            info, text: "[Application]\nname=\(app)\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n",
            permissions: 0o644)
        func sandboxed(_ withInfo: Bool) -> [String] {
            [
                "bwrap", "--die-with-parent", "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--symlink",
                "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc",
                "/proc", "--dev", "/dev", "--bind", w.root, w.root,
            ] + (withInfo ? ["--ro-bind", info, "/.flatpak-info"] : []) + [
                "--", "/usr/bin/gdbus", "call", "--session", "--dest", API.busName.rawValue, "--object-path",
                API.managerPath.rawValue, "--method", API.managerInterface.rawValue + ".GetToken", "work", "{}",
            ]
        }
        do {
            let person = try InstantPerson(w, fixtures: fixtures, label: "Always allow")
            defer { withExtendedLifetime(person) {} }
            try must(sandboxed(true))
        }
        let (granted, host) = try Measure.interleaved(
            runs, { try must(sandboxed(true)) }, { try must(sandboxed(false)) })
        row(
            "`GetToken` from a Flatpak-made app (bubblewrap, `/.flatpak-info`) with a remembered grant, beside the same call from the same bubblewrap as a host program (median of \(runs))",
            value: granted, unit: "ms", floor: host, goal: "≤ 1.1×", met: granted / host <= 1.1)

        let person = try InstantPerson(w, fixtures: fixtures, label: "Allow once")
        defer { withExtendedLifetime(person) {} }
        let (asked, plain) = try Measure.interleaved(
            runs, { try must([bin + "/linkctl", "token", "confirmed"]) },
            { try must([bin + "/linkctl", "token", "work"]) })
        row(
            "`linkctl token NAME` of an account declared `confirm=true`, the prompt answered at once by a scripted person, beside one without (median of \(runs)); linkrouter's own time around the prompt: \(Measure.format(asked - plain)) ms",
            value: asked, unit: "ms", floor: plain, goal: "≤ +5 ms", met: asked - plain <= 5)
    }
}

/// `instant_person.py` on the world's bus: a notification server whose person chooses the button `label` at once.
final class InstantPerson {
    let pid: Int32

    init(_ w: BenchWorld, fixtures: String, label: String) throws {
        let out = w.root + "/instant-person-\(label.replacing(" ", with: "-")).out"
        pid = try Subprocess.spawn(
            ["/usr/bin/python3", fixtures + "/instant_person.py", "--label", label], environment: w.environment,
            stdout: .file(out), stderr: .file(out + ".err"))
        guard w.wait({ ((try? FileSystem.readText(out)) ?? "").contains("ready") }, milliseconds: 20_000) else {
            Subprocess.stop(pid, name: "instant_person.py")
            throw BenchError("instant_person.py did not start: \((try? FileSystem.readText(out + ".err")) ?? "")")
        }
    }

    deinit { Subprocess.stop(pid, name: "instant_person.py") }
}
