import Glibc
import SystemKit

let (arguments, invalid) = ProcessArguments.read()
if let invalid {
    // A link is never made of bytes that are not UTF-8 (KDE keeps such escapes encoded); nothing is guessed.
    StandardStreams.err("linkctl: argument \(invalid) is not valid UTF-8; refusing it\n")
    exit(ExitCode.usage)
}
exit(LinkCtl.main(arguments))
