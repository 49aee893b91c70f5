import Glibc

exit(LinkCtl.main(CommandLine.arguments))
