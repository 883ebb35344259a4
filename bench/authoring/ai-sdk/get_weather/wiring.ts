import { getWeather } from "./get-weather";
export const tools = { get_weather: getWeather };
