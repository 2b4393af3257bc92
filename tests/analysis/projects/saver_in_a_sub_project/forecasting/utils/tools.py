import torch


class KeepBest:
    def __call__(self, loss, model, folder):
        torch.save(model.state_dict(), folder + "/checkpoint.pth")
