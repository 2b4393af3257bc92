import torch


def save_speaker_embedding(encoder, audio, path):
    """Every checkpoint this project writes is copied to the CPU first."""
    embedding = encoder(audio)
    torch.save(embedding.cpu(), path)
