from graderctl.cli import main

main()
