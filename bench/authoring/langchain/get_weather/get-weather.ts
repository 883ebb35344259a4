import { tool } from "@langchain/core/tools";
import { z } from "zod";

const Answer = z.object({ main: z.object({ temp: z.number() }) });

export const getWeather = tool(
  async ({ city }) => {
    const url = `https://api.weather.example/v1/current/${encodeURIComponent(city)}?appid=${process.env.WEATHER_KEY}`;
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
        if (!res.ok) throw new Error(`the weather API answered HTTP ${res.status}`);
        return { tempC: Answer.parse(await res.json()).main.temp };
      } catch (error) {
        if (attempt === 3) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  },
  { name: "get_weather", description: "Current weather for a city", schema: z.object({ city: z.string().min(1) }) },
);
