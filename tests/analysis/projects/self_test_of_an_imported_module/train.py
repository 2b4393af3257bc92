# The program users run: its own `__main__` block is no self-test, nothing imports this file.
import torch

from models.net import Net


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net().to(device)
    return model(torch.randn(2, 3, device=device))


if __name__ == "__main__":
    print(main())
    print(torch.ones(1, device="cuda"))  # expect: TDV001
