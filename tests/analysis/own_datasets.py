# A DataLoader over a dataset class of the file stacks what its __getitem__ returns, where that is;
# a collate_fn of the file (a function or the dataset's method) makes the batches. Never run.
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset, default_collate

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class MovesItsItems(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x.float() / 255, y

    def __getitem__(self, ix):
        x, y = self.x[ix], self.y[ix]
        return x.to(device), y.to(device)

    def __len__(self):
        return len(self.x)


class KeepsItsItems(Dataset):
    def __getitem__(self, ix):
        return torch.zeros(3), torch.zeros(1)

    def collate_fn(self, batch):
        images = torch.stack([image for image, _ in batch]).to(device)
        return images, torch.tensor([int(label) for _, label in batch])


def collate_on_device(batch):
    return torch.stack(batch).to(device)


for inputs, labels in DataLoader(MovesItsItems(torch.zeros(8, 4), torch.zeros(8)), batch_size=4):
    reveal(inputs)  # reveal: tensor {device}
kept = KeepsItsItems()
for inputs, labels in DataLoader(kept, batch_size=4):
    reveal(inputs)  # reveal: tensor {cpu}
for inputs, labels in DataLoader(kept, batch_size=4, collate_fn=kept.collate_fn):
    reveal(inputs)  # reveal: tensor {device}
for inputs in DataLoader(kept, collate_fn=collate_on_device):
    reveal(inputs)  # reveal: batch {device}


def passes_on(batch):
    return default_collate(batch)


# A collate_fn whose batch the code does not show stacks the dataset's items where they are.
on_device = TensorDataset(torch.zeros(8, 4, device=device))
for (inputs,) in DataLoader(on_device, collate_fn=passes_on):
    reveal(inputs)  # reveal: tensor {device}


class MovesTheInputsOnly(Dataset):
    def __getitem__(self, ix):
        return torch.zeros(3).to(device), torch.zeros(1)


# A tuple item keeps each element's place: the labels the dataset did not move stay on the CPU.
for inputs, labels in DataLoader(MovesTheInputsOnly(), batch_size=4):
    reveal(inputs)  # reveal: tensor {device}
    reveal(labels)  # reveal: tensor {cpu}


def stack_first(batch):
    return torch.stack([item[0] for item in batch])


# A collate_fn is given the list of the dataset's items: stacked, they stay where they were.
for stacked in DataLoader(on_device, collate_fn=stack_first):
    reveal(stacked)  # reveal: batch {device}
