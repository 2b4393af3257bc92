from exp.main import fit

fit("checkpoints", [0.5, 0.4])
