import { getWeather } from "./get-weather";
export const tools = [getWeather];
