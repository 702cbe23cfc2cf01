import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './currentConditions';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('shows the current conditions for a city', async () => {
  fetchMock.get('/api/weather/current?city=Oslo', { temperature: 4, condition: 'Light snow' });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/enter city/i), { target: { value: 'Oslo' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/get weather/i)); });

  expect(fetchMock.called('/api/weather/current?city=Oslo')).toBe(true);
  expect(screen.getByTestId('temperature')).toHaveTextContent('4°C');
  expect(screen.getByText('Light snow')).toBeInTheDocument();
}, 10000);

test('shows an error when the weather service fails', async () => {
  fetchMock.get('/api/weather/current?city=Oslo', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/enter city/i), { target: { value: 'Oslo' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/get weather/i)); });

  expect(fetchMock.called('/api/weather/current?city=Oslo')).toBe(true);
  expect(screen.getByText(/unable to fetch weather/i)).toBeInTheDocument();
  expect(screen.queryByTestId('temperature')).not.toBeInTheDocument();
}, 10000);
