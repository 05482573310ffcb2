"""The fixed messages of `rilai bench turn`: ordinary chat, worries, asks, probes."""

from __future__ import annotations

WARM_UP = "Hi there, just testing that you're awake."

MESSAGES: tuple[str, ...] = (
    "Hey, how's it going? I just got home from work.",
    "Work was rough today. My manager criticised my report in front of everyone.",
    "I've been feeling kind of lonely since I moved to this city.",
    "What should I do about my neighbour playing loud music every night?",
    "I finally got the job offer I was hoping for!",
    "Are you real? Do you actually feel things?",
    "I can't afford my rent this month and I'm scared to tell my partner.",
    "I don't need advice, I just want to vent about my sister for a minute.",
    "My sister Maya lives in Lisbon and I miss her a lot.",
    "I'm so tired lately, I barely sleep more than five hours.",
    "Can you help me plan my week? I have three deadlines.",
    "lol my life is a mess 😅 anyway how are you",
    "I started learning the cello last month, it's harder than I thought.",
    "You don't get it. Forget it.",
    "Do you think I should quit my job and go back to school?",
    "I keep procrastinating on my thesis and I feel like a failure.",
    "My dog is sick and the vet bill is huge.",
    "Tell me something interesting about octopuses.",
    "I had a great run this morning, 10 km without stopping!",
    "Thanks for listening tonight. I think I'll go to bed.",
)
