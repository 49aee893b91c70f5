import Glibc
import LinkRouterService

// linkrouterd: see DaemonConfiguration.usage, and docs/ for what it does.
exit(Daemon.main(Array(CommandLine.arguments.dropFirst())))
