from pkg.data import batch
from pkg.run import main


def evaluate():
    return main()(batch(4))
