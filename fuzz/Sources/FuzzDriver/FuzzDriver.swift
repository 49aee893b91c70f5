import Glibc
import SystemKit

/// The `main` of every fuzz target. Built with `-DFUZZING -sanitize=fuzzer,address`
/// (fuzz/run) it hands over to libFuzzer's loop; in the normal build it
/// replays the files named on the command line, so every test run re-checks
/// every input the fuzzers ever kept (fuzz/corpus).
public enum FuzzDriver {
    public typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

    public static func main(_ name: String, _ test: TestOneInput) -> Never {
        #if FUZZING
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, test))
        #else
            var count = 0
            for path in CommandLine.arguments.dropFirst() {
                let bytes: [UInt8]
                do { bytes = try FileSystem.read(path, maxBytes: 1 << 20) } catch {
                    StandardStreams.err("\(name): \(error)\n")
                    exit(66)
                }
                _ = bytes.withUnsafeBufferPointer { test($0.baseAddress, $0.count) }
                count += 1
            }
            print("\(name): replayed \(count) inputs")
            exit(0)
        #endif
    }
}

#if FUZZING
    /// libFuzzer's own loop (the fuzzer runtime is linked, its `main` is not).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    @_silgen_name("LLVMFuzzerRunDriver")
    func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: FuzzDriver.TestOneInput
    ) -> Int32
#endif
