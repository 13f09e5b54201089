from lablang.cli import main

main()
