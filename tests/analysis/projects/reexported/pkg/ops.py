def accelerate(batch):
    return batch.cuda()  # alone: TDV001


def place(batch, device="cuda:0"):  # alone: TDV001
    return batch.to(device)
