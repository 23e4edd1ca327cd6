package bucket
