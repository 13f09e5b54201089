from lablang.cli import run

run()
